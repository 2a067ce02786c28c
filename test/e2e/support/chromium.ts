import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The suite's browser: Debian's Chromium (Playwright cannot download its own here). */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** The flags every spec runs Chromium with (playwright.config.ts); a spec may add its own. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Writes 16-bit PCM mono samples at `rate` Hz as a WAV file (in a new temporary folder) and returns its path. */
export function wavFile(samples: Buffer, rate: number): string {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0)
  header.writeUInt32LE(36 + samples.length, 4)
  header.write('WAVE', 8)
  header.write('fmt ', 12)
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36)
  header.writeUInt32LE(samples.length, 40)
  const path = join(mkdtempSync(join(tmpdir(), 'mc-e2e-microphone-')), 'microphone.wav')
  writeFileSync(path, Buffer.concat([header, samples]))
  return path
}

/** A spec's `test.use` for a Chromium whose microphone plays (and loops) the WAV file `wav`, granted without asking. */
export const fakeMicrophone = (wav: string) => ({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`],
  },
  permissions: ['microphone'],
})
