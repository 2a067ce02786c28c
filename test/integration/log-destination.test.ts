import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { buildApp } from '#server/app'
import { batchedLogDestination, LOG_FLUSH_MS, serverLogger } from '#server/lib/logger'
import { testConfig } from '../helpers/app'
import { createTestDatabase } from '../helpers/db'

/** The batched log destination: nothing written while idle, everything written on close. */
const file = () => join(mkdtempSync(join(tmpdir(), 'mc-log-')), 'server.log')
const ioTurn = () => new Promise((resolve) => setImmediate(resolve))

afterEach(() => {
  vi.useRealTimers()
})

describe('batchedLogDestination', () => {
  it('makes no write at all while idle, and one for a waiting line on the next tick of its timer', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const destination = batchedLogDestination(file())
    await new Promise((resolve) => destination.once('ready', resolve))
    const writes: number[] = []
    destination.on('write', (bytes: number) => writes.push(bytes))

    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(LOG_FLUSH_MS)
      await ioTurn()
    }
    expect(writes).toEqual([])

    const line = '{"msg":"hello"}\n'
    destination.write(line)
    await ioTurn()
    expect(writes).toEqual([]) // batched: not written at once
    const written = new Promise((resolve) => destination.once('write', resolve))
    vi.advanceTimersByTime(LOG_FLUSH_MS)
    await written
    expect(writes).toEqual([line.length])

    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(LOG_FLUSH_MS)
      await ioTurn()
    }
    expect(writes).toEqual([line.length])
    destination.end()
  })
})

describe('the server closing', () => {
  it('writes the lines still waiting in the batch, the last request included', async () => {
    const path = file()
    const database = await createTestDatabase()
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), { database, logger: serverLogger('info', path) })
    await app.ready()
    const response = await app.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(200)
    await app.close()
    await database.destroy()
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { msg: string; url?: string })
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request completed', url: '/api/health' }))
  })
})
