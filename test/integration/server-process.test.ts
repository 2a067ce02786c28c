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

  it('on SIGTERM stops listening, finishes the request in flight, then exits 0 (its 10 s deadline would exit 1)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-data-'))
    const port = await freePort()
    const server = spawnEntry('server/index.ts', { PORT: String(port), DATA_DIR: dataDir })
    await server.waitFor(/Momentum Coach is ready/)

    // A request whose body is still arriving when the signal comes: its `100 Continue` shows the
    // server holds it.
    const socket = net.connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let response = ''
    socket.on('data', (chunk) => (response += chunk.toString()))
    const received = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(response)) return
          socket.off('data', check)
          resolve()
        }
        socket.on('data', check)
      })
    const body = JSON.stringify({ note: 'in flight while the server shuts down' })
    const continued = received(/^HTTP\/1\.1 100 Continue\r\n\r\n/)
    socket.write(
      `POST /api/echo-in-flight HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nOrigin: http://localhost:${port}\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    )
    await continued
    socket.write(body.slice(0, 10))

    server.child.kill('SIGTERM')
    await server.waitFor(/shutting down: finishing requests in flight/)
    await refusesConnections(port)
    expect(server.child.exitCode).toBeNull() // no longer listening, still waiting for our request
    socket.write(body.slice(10))
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))

    expect(response).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 404/)
    expect(response).toContain('"code":"NOT_FOUND"')
    // 0: it finished on its own; close-with-grace's deadline (10 s) exits 1.
    expect((await server.exited).code).toBe(0)
  })
})

/** Resolves once a new connection to `port` is refused (the server closed its listener). */
async function refusesConnections(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect({ host: '127.0.0.1', port })
      probe.once('connect', () => {
        probe.destroy()
        resolve(false)
      })
      probe.once('error', () => resolve(true))
    })
    if (refused) return
    await new Promise((resolve) => setImmediate(resolve))
  }
}
