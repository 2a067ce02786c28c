/**
 * The voice benchmarks' floor (bench/voice.ts): the barest relay a Node gateway can be, in processes
 * of its own. Each browser socket gets a call on the Vapi fake (`POST /call` with the WebSocket
 * transport, as the gateway makes it), its `websocketCallUrl` opened with the Bearer key, and every
 * frame copied across both ways; `{"type":"status","status":"listening"}` once the call's socket is
 * open, `{"type":"end"}` ends the call. No session, no database, no caps, no backpressure, no
 * transcripts: the same `ws` (and `bufferutil`) and the same process count as the server, so what
 * the gateway costs beyond it is the gateway's own, and what this relay cannot hold, no Node
 * gateway on the machine could.
 *
 * Environment: BENCH_RELAY_PORT, BENCH_RELAY_PROCESSES, VAPI_API_URL, VAPI_API_KEY. The supervisor
 * prints `{"url"}` once every process listens; SIGTERM stops them.
 */
import cluster from 'node:cluster'
import { Agent, request } from 'undici'
import WebSocket, { WebSocketServer } from 'ws'
import { VOICE_MAX_TEXT_FRAME_BYTES } from '#common/voice'
import { UPSTREAM_MAX_PAYLOAD, VOICE_AUDIO_FORMAT } from '#server/integrations/vapi-voice'

const port = Number(process.env.BENCH_RELAY_PORT)
const processes = Math.max(1, Number(process.env.BENCH_RELAY_PROCESSES ?? 1))
const apiUrl = process.env.VAPI_API_URL!
const apiKey = process.env.VAPI_API_KEY!

if (cluster.isPrimary) {
  let listening = 0
  for (let i = 0; i < processes; i++) {
    cluster.fork().on('message', (message: { type?: string }) => {
      if (message?.type === 'listening' && ++listening === processes) process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}` })}\n`)
    })
  }
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM')
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
    })
  })
} else {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 })
  const wss = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false, maxPayload: VOICE_MAX_TEXT_FRAME_BYTES, clientTracking: false })
  wss.on('listening', () => process.send?.({ type: 'listening' }))
  wss.on('connection', (browser) => {
    let upstream: WebSocket | undefined
    browser.on('error', () => {})
    browser.on('close', () => upstream?.close(1000))
    browser.on('message', (data, isBinary) => {
      if (isBinary) {
        if (upstream?.readyState === WebSocket.OPEN) upstream.send(data, { binary: true })
      } else if (upstream?.readyState === WebSocket.OPEN) {
        upstream.send(JSON.stringify({ type: 'end-call' }))
        upstream.close(1000)
      }
    })
    void (async () => {
      const { statusCode, body } = await request(`${apiUrl}/call`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ assistantId: 'asst_bench_voice', transport: { provider: 'vapi.websocket', audioFormat: VOICE_AUDIO_FORMAT } }),
      })
      const call = (await body.json()) as { transport?: { websocketCallUrl?: string } }
      const url = call.transport?.websocketCallUrl
      if (statusCode !== 201 || !url) return browser.close(1011, 'no call')
      if (browser.readyState !== WebSocket.OPEN) return
      upstream = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` }, perMessageDeflate: false, maxPayload: UPSTREAM_MAX_PAYLOAD })
      upstream.binaryType = 'nodebuffer'
      upstream.on('error', () => {})
      upstream.on('open', () => browser.send(JSON.stringify({ type: 'status', status: 'listening' })))
      upstream.on('message', (data, isBinary) => {
        if (isBinary && browser.readyState === WebSocket.OPEN) browser.send(data, { binary: true })
      })
      upstream.on('close', () => browser.close(1000))
    })().catch(() => browser.close(1011, 'no call'))
  })
  process.once('SIGTERM', () => {
    wss.close()
    process.exit(0)
  })
}
