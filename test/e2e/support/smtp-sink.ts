import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SMTPServer } from 'smtp-server'
import { createSmtpServer } from '../../helpers/smtp-sink'

/**
 * A real SMTP server for the browser tests, started by playwright.config.ts in the main process
 * before the app: every message the app sends is written to `dir` as JSON, where the tests (in
 * their worker processes) read it.
 */
export function startMailSink(port: number, dir: string): SMTPServer {
  mkdirSync(dir, { recursive: true })
  let counter = 0
  const server = createSmtpServer(({ to, subject, text, headers }) => {
    counter += 1
    // Written under a temporary name, then renamed: a reader never sees half a message.
    const name = `${Date.now()}-${process.pid}-${counter}.json`
    const listUnsubscribe = headers['list-unsubscribe']
    const listUnsubscribePost = headers['list-unsubscribe-post']
    writeFileSync(join(dir, `.${name}.part`), JSON.stringify({ to, subject, text, ...(listUnsubscribe ? { listUnsubscribe, listUnsubscribePost } : {}) }))
    renameSync(join(dir, `.${name}.part`), join(dir, name))
  })
  server.listen(port, '127.0.0.1')
  server.on('error', (error) => console.error('[mail sink]', error))
  return server
}
