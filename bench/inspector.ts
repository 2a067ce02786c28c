/**
 * The V8 inspector of a bench's child processes, for one thing: a full garbage collection before
 * their memory is read (bench/voice.ts's memory per session), so what is read is what the process
 * holds, not the garbage its last round left for a collection that has not come yet
 * (docs/decisions/059-voice-memory-after-collection.md).
 *
 * A process started with `--inspect=127.0.0.1:P` that forks with node:cluster gives its processes
 * the ports after it (P+1, P+2, ...): `inspectorPorts(n)` finds n such ports free, `--inspect` takes
 * the first, and `collectGarbage` asks each process on them for a full collection.
 */
import { createServer } from 'node:net'
import { request } from 'undici'
import WebSocket from 'ws'

/** Whether 127.0.0.1:port can be listened on now. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** `count` consecutive free ports (the first for `--inspect`, the rest for its cluster's processes). */
export async function inspectorPorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 40_000)
    const ports = Array.from({ length: count }, (_, i) => first + i)
    if ((await Promise.all(ports.map(free))).every(Boolean)) return ports
  }
  throw new Error(`no ${count} consecutive free ports for the inspector`)
}

/** The node flag that opens the inspector of a process (and so of its cluster) on `ports[0]`. */
export const inspectFlag = (ports: readonly number[]) => `--inspect=127.0.0.1:${ports[0]}`

/** One inspector's full collection (`HeapProfiler.collectGarbage`: every generation, memory given back). */
async function collectOne(port: number): Promise<void> {
  const { statusCode, body } = await request(`http://127.0.0.1:${port}/json/list`)
  const targets = (await body.json()) as Array<{ webSocketDebuggerUrl?: string }>
  const url = targets[0]?.webSocketDebuggerUrl
  if (statusCode !== 200 || !url) throw new Error(`the inspector on port ${port} answered ${statusCode} without a target`)
  const ws = new WebSocket(url, { perMessageDeflate: false })
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject)
      ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })))
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: number; error?: { message: string } }
        if (message.id !== 1) return
        if (message.error) reject(new Error(`collectGarbage on port ${port}: ${message.error.message}`))
        else resolve()
      })
    })
  } finally {
    ws.close()
  }
}

/** A full collection in every process on `ports`, at once. */
export async function collectGarbage(ports: readonly number[]): Promise<void> {
  await Promise.all(ports.map(collectOne))
}
