import { mkdtempSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '#server/db/client'
import { users } from '#server/db/schema'
import { insertUser } from '../helpers/factories'
import { freePort, spawnEntry } from '../helpers/process'

/** The real entry (server/index.ts) as `npm start` runs it, on the embedded PGlite. */
describe('server process', () => {
  it('exits 1 with one line naming PORT when PORT is not a number', async () => {
    const server = spawnEntry('server/index.ts', { PORT: 'abc' })
    const { code } = await server.exited
    expect(code).toBe(1)
    const lines = server.output().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('PORT')
  })

  it('serves on the embedded defaults and keeps its data in DATA_DIR across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-data-'))
    const port = await freePort()
    const env = { PORT: String(port), DATA_DIR: dataDir }

    const first = spawnEntry('server/index.ts', env)
    await first.waitFor(/Momentum Coach is ready/)
    const health = await fetch(`http://127.0.0.1:${port}/api/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', database: { state: 'up', driver: 'pglite' } })
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)

    // Data written between runs is still there after the next run.
    const embedded = await openDatabase({ dataDir })
    const user = await insertUser(embedded.db)
    await embedded.close()

    const second = spawnEntry('server/index.ts', env)
    await second.waitFor(/Momentum Coach is ready/)
    const again = await fetch(`http://127.0.0.1:${port}/api/plans`)
    expect(again.status).toBe(200)
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)

    const reopened = await openDatabase({ dataDir })
    const rows = await reopened.db.select({ id: users.id }).from(users).where(eq(users.id, user.id))
    await reopened.close()
    expect(rows).toEqual([{ id: user.id }])
    // Two cold starts of the real entry (tsx compiling the app, PGlite opening its directory) and
    // two shutdowns: well over the default 30 s on a loaded machine.
  }, 120_000)

  it('on SIGTERM finishes the request in flight, then exits 0 within 10 s', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-data-'))
    const port = await freePort()
    const server = spawnEntry('server/index.ts', { PORT: String(port), DATA_DIR: dataDir })
    await server.waitFor(/Momentum Coach is ready/)

    // A request whose body is still arriving when the signal comes.
    const socket = net.connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let response = ''
    socket.on('data', (chunk) => (response += chunk.toString()))
    const body = JSON.stringify({ note: 'in flight while the server shuts down' })
    socket.write(
      `POST /api/echo-in-flight HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nOrigin: http://localhost:${port}\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 300))

    const signalledAt = Date.now()
    server.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(server.child.exitCode).toBeNull() // still waiting for our request
    socket.write(body.slice(10))
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))

    expect(response).toMatch(/^HTTP\/1\.1 404/)
    expect(response).toContain('"code":"NOT_FOUND"')
    const { code } = await server.exited
    expect(code).toBe(0)
    expect(Date.now() - signalledAt).toBeLessThan(10_000)
    expect(server.output()).toContain('shutting down')
  })
})
