import nodemailer, { type Transporter } from 'nodemailer'
import type { Logger } from 'pino'

/** What an email is, as counted (`momentum_emails_sent_total{kind}`): a closed set. */
export type EmailKind =
  | 'email_confirmation'
  | 'account_deleted'
  | 'password_reset'
  | 'new_email_confirmation'
  | 'email_change_notice'
  | 'phone_changed'
  | 'password_changed'
  | 'trial_ending'
  | 'weekly_report'
  | 'staff_invitation'
  | 'support_reply'
  | 'coach_message_notice'
  | 'coach_session'

export type OutgoingMail = {
  kind: EmailKind
  to: string
  subject: string
  text: string
  html: string
  /** The email's one link, if it has one (logged in development when there is no SMTP). */
  link?: string | undefined
  /** Extra header fields (a report's List-Unsubscribe and List-Unsubscribe-Post, RFC 8058). */
  headers?: Record<string, string>
  /** An iCalendar invitation, sent as the text/calendar part calendars act on (and as session.ics). */
  calendar?: { method: 'REQUEST' | 'CANCEL'; content: string }
}

export type Mailer = {
  send(mail: OutgoingMail): Promise<void>
  close(): void
}

/**
 * Mail through nodemailer to SMTP_URL, or, with no SMTP configured, each message written to the
 * log (recipient, subject, and the link when `logLinks`, so a developer can follow it). Production
 * requires SMTP_URL (config.ts), and never logs a link even so.
 */
export function createMailer(options: {
  smtpUrl: string | undefined
  from: string
  log: Logger
  logLinks: boolean
  /** Each email handed over (counted by kind). */
  onSent?: (kind: EmailKind) => void
}): Mailer {
  const sent = options.onSent ?? (() => {})
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        const line = { kind: mail.kind, to: mail.to, subject: mail.subject, ...(options.logLinks && mail.link ? { link: mail.link } : {}) }
        options.log.info(line, 'email (SMTP_URL not set, logged instead)')
        sent(mail.kind)
      },
      close() {},
    }
  }
  const transport: Transporter = nodemailer.createTransport(options.smtpUrl, { from: options.from })
  return {
    async send(mail) {
      // An address object is used as it is; a string would be parsed, and a name, a second
      // address or a list in it would be honoured (the schema refuses them too: common/auth.ts).
      await transport.sendMail({
        from: options.from,
        to: { name: '', address: mail.to },
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.headers ? { headers: mail.headers } : {}),
        ...(mail.calendar ? { icalEvent: { method: mail.calendar.method, filename: 'session.ics', content: mail.calendar.content } } : {}),
      })
      sent(mail.kind)
    },
    close() {
      transport.close()
    },
  }
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** A short transactional email with a plain-text and an HTML part around one link (or none). */
export function composeEmail(
  input: { kind: EmailKind; to: string; subject: string; greeting: string; paragraphs: string[]; footer: string; extraLinks?: Array<{ label: string; url: string }> } & (
    | { action: string; link: string }
    | { action?: undefined; link?: undefined }
  ),
): OutgoingMail {
  const extra = input.extraLinks ?? []
  const action = [...(input.link ? [`${input.action}: ${input.link}`] : []), ...extra.map((item) => `${item.label}: ${item.url}`), ...(input.link || extra.length ? [''] : [])]
  const text = [input.greeting, '', ...input.paragraphs.flatMap((p) => [p, '']), ...action, input.footer, '', '— Momentum Coach'].join('\n')
  const button = input.link
    ? `<p><a href="${escapeHtml(input.link)}" style="display:inline-block;background:#3730a3;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(input.action)}</a></p>
<p style="font-size:13px;color:#4b5563">Or paste this link into your browser: ${escapeHtml(input.link)}</p>
`
    : ''
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#111827;line-height:1.5">
<p>${escapeHtml(input.greeting)}</p>
${input.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${button}${extra.length ? `<p>${extra.map((item) => `<a href="${escapeHtml(item.url)}">${escapeHtml(item.label)}</a>`).join(' · ')}</p>\n` : ''}<p style="font-size:13px;color:#4b5563">${escapeHtml(input.footer)}</p>
<p>— <strong style="color:#3730a3">Momentum</strong> <strong style="color:#b45309">Coach</strong></p>
</body></html>`
  return { kind: input.kind, to: input.to, subject: input.subject, text, html, link: input.link }
}
