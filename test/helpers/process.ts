import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export type Spawned = {
  child: ChildProcess
  output: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
}

/** Runs `node --import tsx <entry> [args]` from the repository root with only the given environment. */
export function spawnEntry(entry: string, env: Record<string, string>, args: readonly string[] = []): Spawned {
  return spawnNode(['--import', 'tsx', entry, ...args], env)
}

/** Runs a compiled entry with plain `node <entry> [args]` (no tsx), as spawnEntry runs a source one. */
export function spawnCompiled(entry: string, env: Record<string, string>, args: readonly string[] = []): Spawned {
  return spawnNode([entry, ...args], env)
}

function spawnNode(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now()
        const tick = () => {
          if (pattern.test(text)) return resolve()
          if (child.exitCode !== null) return reject(new Error(`process exited (${child.exitCode}) before ${pattern}:\n${text}`))
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}:\n${text}`))
          setTimeout(tick, 50)
        }
        tick()
      })
    },
  }
}
