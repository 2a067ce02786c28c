import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loggerOptions } from '#server/lib/logger'

function capture() {
  const lines: Array<Record<string, unknown>> = []
  const log = pino({ ...loggerOptions('info'), transport: undefined }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) })
  return { lines, log }
}

describe('the log', () => {
  it('masks phone numbers to their last two digits, at the top of a line and one level down, and keeps the ids', () => {
    const { lines, log } = capture()
    log.info({ callId: 'call-1', phone: '+15551234567', detail: { customerNumber: '+15550001111', toNumber: '+15550002222' } }, 'dialled')
    expect(lines[0]).toMatchObject({ callId: 'call-1', phone: '••••••••••67', detail: { customerNumber: '••••••••••11', toNumber: '••••••••••22' } })
    expect(JSON.stringify(lines[0])).not.toMatch(/555\d{7}/)
  })

  it('still redacts credentials whole', () => {
    const { lines, log } = capture()
    log.info({ req: { headers: { cookie: 'session=abc', authorization: 'Bearer x' } } }, 'request')
    expect(lines[0]).toMatchObject({ req: { headers: { cookie: '[redacted]', authorization: '[redacted]' } } })
  })
})
