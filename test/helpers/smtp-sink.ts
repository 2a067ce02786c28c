import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export type CapturedMail = {
  to: string[]
  raw: string
  subject: string
  text: string
  /** The message's header fields, by lower-case name (folded lines unfolded; encoded words as sent). */
  headers: Record<string, string>
}

/** The top-level header fields of a raw message. */
function headersOf(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? ''
  const fields: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) fields[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return fields
}

/**
 * A real SMTP server (no auth, no TLS) that hands every message it receives to `onMail`. The
 * server accepts the message (and the sender's SMTP call returns) once `onMail`'s promise, if it
 * returns one, has settled.
 */
export function createSmtpServer(onMail: (mail: CapturedMail) => void | Promise<void>): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
      stream.on('end', () => {
        const accepted = onMail({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          subject: decodeEncodedWords(/^Subject: (.*(?:\r?\n[ \t].*)*)$/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim() ?? ''),
          text: decodeQuotedPrintable(raw),
          headers: headersOf(raw),
        })
        void Promise.resolve(accepted).then(() => callback())
      })
    },
  })
}

/** A real SMTP server the test starts: the app's nodemailer sends to it over TCP. */
export async function startSmtpSink(): Promise<{
  url: string
  mails: CapturedMail[]
  waitForMail(to: string, subject: RegExp, timeoutMs?: number): Promise<CapturedMail>
  linkIn(mail: CapturedMail): string
  /** The token of the email's link (in its fragment: `#token=…`). */
  tokenIn(mail: CapturedMail): string
  /**
   * Holds every message from now on: it is recorded (`mails`) but not accepted, so the sender's
   * SMTP call does not return, until `release()`.
   */
  hold(): { release(): void }
  close(): Promise<void>
}> {
  const mails: CapturedMail[] = []
  let held: Promise<void> | undefined
  const server = createSmtpServer((mail) => {
    mails.push(mail)
    return held
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.server.address() as AddressInfo
  const linkIn = (mail: CapturedMail) => {
    const link = /https?:\/\/[^\s"<>]+token=[a-z2-7]+/.exec(mail.text)?.[0]
    if (!link) throw new Error(`no link in the email:\n${mail.text}`)
    return link
  }
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitForMail(to, subject, timeoutMs = 10_000) {
      const started = Date.now()
      for (;;) {
        const mail = mails.find((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject))
        if (mail) return mail
        if (Date.now() - started > timeoutMs) throw new Error(`no email to ${to} matching ${subject}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    linkIn,
    tokenIn(mail) {
      const token = new URLSearchParams(new URL(linkIn(mail)).hash.slice(1)).get('token')
      if (!token) throw new Error(`no token in the fragment of the email's link:\n${mail.text}`)
      return token
    },
    hold() {
      let release!: () => void
      held = new Promise<void>((resolve) => (release = resolve))
      return {
        release() {
          held = undefined
          release()
        },
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Quoted-printable to text, its bytes read as UTF-8 (nodemailer sends 7-bit: QP or base64). */
function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) as text. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    )
}
