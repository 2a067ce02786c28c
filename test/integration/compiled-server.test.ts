import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'
import { freePort, ROOT, spawnCompiled, type Spawned } from '../helpers/process'

/**
 * The compiled server (scripts/build-server.mjs, what `npm start` runs): built into a folder of this
 * file's own inside the project (its packages come from the project's node_modules, as dist/'s do),
 * started with plain node; no process of its tree runs tsx. Redis's logical database 12 is this
 * file's own (the cluster's processes use the product's key prefix), emptied before and after.
 */
const OUT = join(ROOT, '.tmp', `compiled-server-test-${process.pid}`)
const ENTRY = join(OUT, 'server', 'index.js')
const REDIS_DB = 12

/** The process and its descendants (children of any of its threads). */
function processTree(pid: number): number[] {
  const children: number[] = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number))
    }
  } catch {
    // gone meanwhile
  }
  return [pid, ...children.flatMap(processTree)]
}

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)

async function healthy(port: number, server: Spawned): Promise<void> {
  const started = Date.now()
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`the server exited (${server.child.exitCode}):\n${server.output()}`)
    if (Date.now() - started > 60_000) throw new Error(`no 200 from /api/health within 60 s:\n${server.output()}`)
    const status = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { connection: 'close' } }).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function stop(server: Spawned): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode
  server.child.kill('SIGTERM')
  return (await server.exited).code
}

describe.runIf(process.platform === 'linux')('the compiled server', () => {
  beforeAll(() => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-server.mjs'), OUT], { cwd: ROOT, encoding: 'utf8' })
    expect(build.status, build.stderr).toBe(0)
  }, 60_000)

  afterAll(() => rmSync(OUT, { recursive: true, force: true }))

  it('holds the entries `npm start`, `npm run worker` and the database commands run, and no TypeScript', () => {
    for (const entry of ['server/index.js', 'worker/index.js', 'server/db/migrate-cli.js', 'scripts/db-seed.js', 'scripts/staff.js']) {
      expect(existsSync(join(OUT, entry)), entry).toBe(true)
    }
    const files = readdirSync(OUT, { recursive: true, encoding: 'utf8' })
    expect(files.filter((file) => file.endsWith('.ts'))).toEqual([])
    // Our `#` imports are resolved at build time: none is left for node to resolve.
    const code = files.filter((file) => file.endsWith('.js')).map((file) => readFileSync(join(OUT, file), 'utf8'))
    expect(code.filter((text) => /from ["']#/.test(text))).toEqual([])
  })

  it('bundles the packages: it leaves to node only its own modules, EXTERNAL and two absent optional ones', () => {
    const meta = JSON.parse(readFileSync(join(OUT, 'meta.json'), 'utf8')) as { external: string[]; imported: string[] }
    const packageOf = (path: string) => path.split('/').slice(0, path.startsWith('@') ? 2 : 1).join('/')
    // node:sqlite is newer than Node 20 (undici asks for it only for its SQLite cache); bullmq
    // requires `pg` and `@valkey/valkey-glide` only for the backends of those names.
    const allowed = new Set([...meta.external, 'pg', '@valkey/valkey-glide'])
    expect(meta.imported.filter((path) => !path.startsWith('node:') && !isBuiltin(path) && !allowed.has(packageOf(path)))).toEqual([])
    expect(meta.external).toEqual(expect.arrayContaining(['@electric-sql/pglite', '@node-rs/argon2', 'pino']))
    expect(meta.external).not.toContain('fastify')
  })

  it('loads every chunk, the ones imported only when needed too (the externals found from dist/)', () => {
    const chunks = readdirSync(join(OUT, 'chunks')).filter((file) => file.endsWith('.js'))
    expect(chunks.length).toBeGreaterThan(1)
    const urls = chunks.map((file) => pathToFileURL(join(OUT, 'chunks', file)).href)
    const script = `for (const url of ${JSON.stringify(urls)}) await import(url)`
    const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
    expect(loaded.status, loaded.stderr).toBe(0)
  }, 90_000)

  it('starts on the embedded defaults with plain node (the migrations found from its folder), no tsx in its process tree', async () => {
    const port = await freePort()
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-compiled-'))
    const server = spawnCompiled(ENTRY, { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir })
    try {
      await healthy(port, server)
      const health = await fetch(`http://127.0.0.1:${port}/api/health`)
      expect(await health.json()).toMatchObject({ status: 'ok', database: { state: 'up', driver: 'pglite' } })
      // The migrations ran (the starter catalogue is in the tables they make).
      expect(server.output()).toContain('Loaded the starter course catalogue')
      const openapi = await fetch(`http://127.0.0.1:${port}/api/openapi.json`)
      expect(openapi.status).toBe(200)
      expect(await openapi.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'Momentum Coach API' } })
      if (existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
        // The web app, from the project's web/dist (built before this file by `npm test`).
        const page = await fetch(`http://127.0.0.1:${port}/`)
        expect(page.status).toBe(200)
        expect(page.headers.get('content-type')).toMatch(/text\/html/)
      }
      // What is imported only when first needed works from dist/ too: a sign-up reads the
      // common-password list (a package loaded by import()), and refuses one of its passwords.
      const signUp = (email: string, password: string) =>
        fetch(`http://127.0.0.1:${port}/api/auth/signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
          body: JSON.stringify({ fullName: 'Dana Lee', email, phoneNumber: '2025234567', password, confirmPassword: password, communicationConsent: true, termsAccepted: true }),
        })
      expect((await signUp('dana@example.com', 'lantern-harbor-velvet-9')).status).toBe(201)
      const common = await signUp('lee@example.com', 'password123')
      expect(common.status).toBe(400)
      expect(await common.json()).toMatchObject({ error: { code: 'COMMON_PASSWORD', field: 'password' } })

      const tree = processTree(server.child.pid!)
      expect(commandLine(tree[0]!)).toEqual([process.execPath, ENTRY])
      for (const pid of tree) expect(commandLine(pid).join(' ')).not.toMatch(/tsx/)
      expect(await stop(server), server.output()).toBe(0)
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 90_000)

  describe.runIf(hasPostgres())('with WEB_CONCURRENCY=2', () => {
    let database: TestDatabase
    let redis: Redis
    const redisUrl = () => `${inject('redisUrl')}/${REDIS_DB}`

    beforeAll(async () => {
      database = await createTestDatabase()
      redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 })
      await redis.flushdb()
    })

    afterAll(async () => {
      await redis?.flushdb()
      await redis?.quit()
      await database?.destroy()
    })

    it('the supervisor forks its server processes as plain node too', async () => {
      const port = await freePort()
      const server = spawnCompiled(ENTRY, {
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl(),
        WEB_CONCURRENCY: '2',
      })
      try {
        await server.waitFor(/Momentum Coach is ready/, 60_000)
        await healthy(port, server)
        // PostgreSQL migrated and Redis in use (BullMQ's enqueuer, a chunk of its own).
        const health = await fetch(`http://127.0.0.1:${port}/api/health`)
        expect(await health.json()).toMatchObject({ database: { state: 'up', driver: 'postgres' }, redis: { state: 'up' } })
        const tree = processTree(server.child.pid!)
        expect(tree).toHaveLength(3)
        for (const pid of tree) {
          expect(commandLine(pid)).toEqual([process.execPath, ENTRY])
        }
        expect(await stop(server), server.output()).toBe(0)
      } finally {
        if (server.child.exitCode === null) server.child.kill('SIGKILL')
      }
    }, 90_000)

    it('the worker starts with plain node: its BullMQ workers ready, then a clean stop', async () => {
      const worker = spawnCompiled(join(OUT, 'worker', 'index.js'), { DATABASE_URL: database.url, REDIS_URL: redisUrl() })
      try {
        await worker.waitFor(/worker ready/, 60_000)
        expect(await stop(worker), worker.output()).toBe(0)
      } finally {
        if (worker.child.exitCode === null) worker.child.kill('SIGKILL')
      }
    }, 90_000)
  })
})
