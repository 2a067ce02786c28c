import pino, { type LoggerOptions } from 'pino'
import { headerKey, STRIPE_SIGNATURE_HEADER, VAPI_SECRET_HEADER } from '#common/webhooks'
import { traceLogFields } from '../observability/tracing'

/** Log fields that hold a phone number, at the top of a line or one level down: masked. */
const PHONE_FIELDS = ['phone', 'phoneNumber', 'customerNumber', 'toNumber', 'fromNumber']

/** `+15551234567` → `•••••••••67`: the number's length and its last two digits. */
function maskPhone(value: unknown): unknown {
  if (typeof value !== 'string') return value
  return value.length <= 2 ? '••' : `${'•'.repeat(value.length - 2)}${value.slice(-2)}`
}

/**
 * pino options shared by the server and the worker: JSON lines by default, pretty only on a TTY,
 * credential headers redacted. Request bodies are never logged, so passwords and tokens never are.
 */
export function loggerOptions(level: string): LoggerOptions {
  const pretty = process.stdout.isTTY && level !== 'silent'
  return {
    level,
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        `req.headers["${headerKey(STRIPE_SIGNATURE_HEADER)}"]`,
        `req.headers["${headerKey(VAPI_SECRET_HEADER)}"]`,
        'res.headers["set-cookie"]',
        ...PHONE_FIELDS.flatMap((field) => [field, `*.${field}`]),
      ],
      // A phone number keeps its last two digits (enough to tell two apart in an incident); a credential nothing.
      censor: (value, path) => (PHONE_FIELDS.includes(path[path.length - 1]!) ? maskPhone(value) : '[redacted]'),
    },
    // With tracing on, a line written in a span carries its trace_id and span_id.
    ...traceLogFields(),
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  }
}

/** Bytes of log lines gathered before one write, and the longest a line waits when traffic is low. */
export const LOG_BATCH_BYTES = 65_536
export const LOG_FLUSH_MS = 1000

/** pino's asynchronous destination, plus `flushPending` for a clean shutdown. */
export type BatchedDestination = ReturnType<typeof pino.destination> & {
  /** Writes what is buffered, if anything, and resolves once it is written. */
  flushPending(): Promise<void>
}

/**
 * The server's log destination: pino's asynchronous SonicBoom on stdout (or `dest`), writing once
 * per 64 KB of lines or once a second, whichever comes first, instead of one write per line (pino's
 * "asynchronous logging"). Under load that is one write per ~300 requests instead of one each (a
 * write costs tens of µs of the event loop on these machines, ~1 µs a request at 8 KB batches). The timer writes only when a line is
 * waiting (SonicBoom's own periodic flush writes even when idle); `flushPending` writes the rest on
 * close. A SIGKILL loses at most the last second.
 *
 * The lines of a batch are gathered here and handed to SonicBoom joined, once per batch: SonicBoom
 * appends each line to one growing string and measures that string's UTF-8 length on every write,
 * which copies the whole batch so far for each line (`npm run bench -- me`, ADR 037), and made
 * bigger batches dearer per line. Its `flush`,
 * `flushSync` and `end` hand over the gathered lines first, so nothing is held back from them.
 */
export function batchedLogDestination(dest: number | string = 1): BatchedDestination {
  // minLength 1: SonicBoom writes each batch it is handed at once (or right after the write in
  // flight), and its flush waits for the write (with 0 it would not).
  const boom = pino.destination({ dest, minLength: 1, sync: false })
  let pending = false
  let lines: string[] = []
  let gathered = 0
  const write = boom.write.bind(boom)
  const handOver = (): boolean => {
    if (lines.length === 0) return true
    const batch = lines.length === 1 ? lines[0]! : lines.join('')
    lines = []
    gathered = 0
    return write(batch)
  }
  boom.write = (chunk: string) => {
    pending = true
    lines.push(chunk)
    gathered += chunk.length
    return gathered >= LOG_BATCH_BYTES ? handOver() : true
  }
  const flush = boom.flush.bind(boom)
  const flushSync = boom.flushSync.bind(boom)
  const end = boom.end.bind(boom)
  boom.flush = (callback?: (error?: Error) => void) => {
    handOver()
    flush(callback)
  }
  boom.flushSync = () => {
    handOver()
    flushSync()
  }
  boom.end = () => {
    handOver()
    end()
  }
  const flushPending = () =>
    new Promise<void>((resolve) => {
      if (!pending || (boom as { destroyed?: boolean }).destroyed) return resolve()
      pending = false
      boom.flush(() => resolve())
    })
  const timer = setInterval(() => void flushPending(), LOG_FLUSH_MS)
  timer.unref()
  boom.once('close', () => clearInterval(timer))
  return Object.assign(boom, { flushPending })
}

/** The server's logger: the options above, to the batched destination (a TTY gets pino-pretty instead). */
export function serverLogger(level: string, dest: number | string = 1): LoggerOptions & { stream?: BatchedDestination } {
  const options = loggerOptions(level)
  return options.transport || level === 'silent' ? options : { ...options, stream: batchedLogDestination(dest) }
}
