import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { composeEmail, createMailer } from '#server/integrations/mailer'

function capturingLog() {
  const lines: string[] = []
  return { lines, log: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) }
}

const mail = composeEmail({
  kind: 'password_reset',
  to: 'person@example.com',
  subject: 'Reset your Momentum Coach password',
  greeting: 'Hello,',
  paragraphs: ['Someone asked to reset the password.'],
  action: 'Choose a new password',
  link: 'http://localhost:3000/auth?mode=reset#token=secrettokenabcdefghijklmnop',
  footer: 'This link works once.',
})

describe('the log mailer (no SMTP_URL)', () => {
  it('writes the link for a developer to follow', async () => {
    const { lines, log } = capturingLog()
    await createMailer({ smtpUrl: undefined, from: 'Momentum Coach <no-reply@example.com>', log, logLinks: true }).send(mail)
    expect(lines.join('\n')).toContain('token=secrettokenabcdefghijklmnop')
  })

  it('never writes the link (nor the body) in production', async () => {
    const { lines, log } = capturingLog()
    await createMailer({ smtpUrl: undefined, from: 'Momentum Coach <no-reply@example.com>', log, logLinks: false }).send(mail)
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ to: 'person@example.com', subject: 'Reset your Momentum Coach password' })
    expect(lines[0]).not.toContain('secrettoken')
  })
})
