import type { LoggerOptions } from 'pino'

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
        'req.headers["stripe-signature"]',
        'req.headers["x-vapi-secret"]',
        'res.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  }
}
