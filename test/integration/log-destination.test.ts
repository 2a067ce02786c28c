import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { buildApp } from '#server/app'
import { batchedLogDestination, LOG_BATCH_BYTES, LOG_FLUSH_MS, serverLogger } from '#server/lib/logger'
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

  it("writes a batch as soon as a batch's worth of lines wait, all of it in one write, in order", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const path = file()
    const destination = batchedLogDestination(path)
    await new Promise((resolve) => destination.once('ready', resolve))
    const writes: number[] = []
    destination.on('write', (bytes: number) => writes.push(bytes))
    const lines = Array.from({ length: Math.ceil((LOG_BATCH_BYTES * 1.2) / 90) }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(80)}"}\n`)
    const total = lines.reduce((sum, line) => sum + line.length, 0)
    const full = lines.findIndex((_, i) => lines.slice(0, i + 1).join('').length >= LOG_BATCH_BYTES)
    const written = new Promise((resolve) => destination.once('write', resolve))
    for (const line of lines) destination.write(line)
    await written // no timer moved: the full batch went at once
    expect(writes).toEqual([lines.slice(0, full + 1).join('').length])
    await destination.flushPending()
    expect(writes.reduce((sum, bytes) => sum + bytes, 0)).toBe(total)
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''))
    destination.end()
  })

  it('hands the lines it gathers to flushSync and end (pino calls them at exit)', async () => {
    const path = file()
    const destination = batchedLogDestination(path)
    await new Promise((resolve) => destination.once('ready', resolve))
    destination.write('{"msg":"one"}\n')
    destination.flushSync()
    expect(readFileSync(path, 'utf8')).toBe('{"msg":"one"}\n')
    destination.write('{"msg":"two"}\n')
    const closed = new Promise((resolve) => destination.once('close', resolve))
    destination.end()
    await closed
    expect(readFileSync(path, 'utf8')).toBe('{"msg":"one"}\n{"msg":"two"}\n')
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
