import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'

/**
 * A real SMTP server for the browser tests, started by playwright.config.ts in the main process
 * before the app: every message the app sends is written to `dir` as JSON, where the tests (in
 * their worker processes) read it.
 */
export function startMailSink(port: number, dir: string): SMTPServer {
  mkdirSync(dir, { recursive: true })
  let counter = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? ''
        const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        counter += 1
        writeFileSync(join(dir, `${Date.now()}-${process.pid}-${counter}.json`), JSON.stringify({ to, subject, text }))
        callback()
      })
    },
  })
  server.listen(port, '127.0.0.1')
  server.on('error', (error) => console.error('[mail sink]', error))
  return server
}
