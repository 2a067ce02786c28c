import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Where an e2e server writes its log (pino's JSON lines): `server.log` in its DATA_DIR. */
export const serverLogIn = (dataDir: string) => join(dataDir, 'server.log')

/** The shared server's log (playwright.config.ts starts it with the suite's DATA_DIR). */
export function sharedServerLog(): string {
  const dir = process.env.E2E_DATA_DIR
  if (!dir) throw new Error('E2E_DATA_DIR is not set: run the browser tests through playwright.config.ts')
  return serverLogIn(dir)
}

type LoggedText = { msg?: string; to?: string; body?: string }

/**
 * The last code a server without Twilio wrote to its log for `phoneNumber` (ten digits), read as a
 * developer running `npm start` reads it: the text that would have gone, logged instead. Waits for
 * the line to be written (pino writes asynchronously).
 */
export async function waitForLoggedCode(logFile: string, phoneNumber: string, timeoutMs = 15_000): Promise<string> {
  const started = Date.now()
  for (;;) {
    const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n') : []
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!
      if (!line.includes('is your code')) continue
      const entry = JSON.parse(line) as LoggedText
      if (entry.to !== `+1${phoneNumber}`) continue
      const code = /(\d{6}) is your code/.exec(entry.body ?? '')?.[1]
      if (code) return code
    }
    if (Date.now() - started > timeoutMs) throw new Error(`no code for ${phoneNumber} in ${logFile}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
