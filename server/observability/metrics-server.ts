/**
 * The metrics listener: `GET /metrics` in Prometheus's text format on METRICS_PORT (METRICS_HOST,
 * 127.0.0.1 by default), a port of its own, never the public one, so the numbers are not public and
 * a scrape never queues behind the app's requests. Nothing else is served there.
 */
import { createServer } from 'node:http'
import type { Logger } from 'pino'

/** Where the metrics are served when METRICS_PORT is not set: the server's, and the worker's (both may run on one machine). */
export const DEFAULT_METRICS_PORT = { server: 9464, worker: 9465 } as const

export type MetricsListener = { port: number; close(): Promise<void> }

type Render = () => Promise<{ body: string; contentType: string }>

/**
 * Serves `render` on `port`: null when METRICS_PORT was not set (the default port is tried, and one
 * in use is logged, not fatal: the process still serves its work); an explicit port that cannot be
 * bound is an error for the caller (the operator asked for it). Port 0 means off: null returned.
 */
export async function serveMetrics(options: {
  port: number | null
  host: string
  defaultPort: number
  render: Render
  log: Logger
}): Promise<MetricsListener | null> {
  if (options.port === 0) return null
  const port = options.port ?? options.defaultPort
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at /metrics\n')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n')
      return
    }
    options.render().then(
      ({ body, contentType }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
        response.end(request.method === 'HEAD' ? undefined : body)
      },
      (error: unknown) => {
        options.log.error({ err: error }, 'metrics: the scrape failed')
        response.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be gathered\n')
      },
    )
  })
  // A scraper's keep-alive connection must not hold the process open at shutdown.
  server.keepAliveTimeout = 5_000
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, options.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    if (options.port === null && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      options.log.error({ port, host: options.host }, 'metrics: the default port is in use, so this process serves no metrics (set METRICS_PORT, or 0 to switch them off)')
      return null
    }
    throw error
  }
  const address = server.address()
  const bound = typeof address === 'object' && address ? address.port : port
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
