import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createTextSender } from '#server/integrations/twilio'

/** A logger whose lines are kept. */
function capture() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { log: pino({ level: 'info' }, stream), lines }
}

describe('texts without Twilio (docs/decisions/060)', () => {
  const text = { to: '+12025550123', from: '+15555550123', body: 'Momentum Coach: 482913 is your code to verify this number.' }

  it('writes each text, its words included, to the log outside production (the code reaches the person running npm start)', async () => {
    const { log, lines } = capture()
    expect(await createTextSender(undefined, log).send(text)).toEqual({ kind: 'logged' })
    expect(lines.join('')).toContain('482913')
  })

  it('never writes a text’s words or a code to the log in production', async () => {
    const { log, lines } = capture()
    expect(await createTextSender(undefined, log, { logBodies: false }).send(text)).toEqual({ kind: 'logged' })
    const written = lines.join('')
    expect(written).not.toContain('482913')
    expect(written).not.toContain('verify this number')
    expect(written).not.toContain('2025550123')
    expect(written).toMatch(/not sent/)
  })
})
