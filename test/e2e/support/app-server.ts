import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, ROOT } from '../../helpers/process'
import { serverLogIn } from './server-log'

/** `logFile`: the server's log (JSON lines), where a code is written when Twilio is not configured. */
export type AppServer = { baseUrl: string; logFile: string; stop(): Promise<void> }

/**
 * A second production server for specs that need other configuration than the shared one (Stripe
 * or Vapi pointed at a fake): the real entry on a random port, a fresh DATA_DIR (or the given one,
 * which a spec may have seeded and then owns), the e2e mail sink.
 */
export function startAppServer(env: Record<string, string>, options: { dataDir?: string } = {}): Promise<AppServer> {
  return spawnAppServer('server/index.ts', env, options)
}

/**
 * Runs `entry` (server/index.ts, or a test-support entry that builds the same app) with the e2e
 * environment on a random port, and resolves once its /api/health answers.
 */
export async function spawnAppServer(entry: string, env: Record<string, string>, options: { dataDir?: string } = {}): Promise<AppServer> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'mc-e2e-server-'))
  let stderr = ''
  const logFile = serverLogIn(dataDir)
  const log = openSync(logFile, 'a')
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: baseUrl,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', log, 'pipe'],
  })
  closeSync(log)
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the second server exited (${child.exitCode}):\n${stderr}`)
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) throw new Error(`the second server did not start:\n${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    baseUrl,
    logFile,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
