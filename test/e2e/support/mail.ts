import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export type Email = {
  to: string[]
  subject: string
  text: string
  /** A report email's List-Unsubscribe and List-Unsubscribe-Post header fields (RFC 8058). */
  listUnsubscribe?: string
  listUnsubscribePost?: string
}

/** Waits for the email the app sent to `to` (through the real SMTP sink) whose subject matches. */
export async function waitForEmail(to: string, subject: RegExp, timeoutMs = 15_000): Promise<Email> {
  const dir = process.env.E2E_MAIL_DIR
  if (!dir) throw new Error('E2E_MAIL_DIR is not set: run the browser tests through playwright.config.ts')
  const started = Date.now()
  for (;;) {
    const files = readdirSync(dir).filter((file) => file.endsWith('.json')).sort().reverse()
    for (const file of files) {
      const mail = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Email
      if (mail.to.includes(to.toLowerCase()) && subject.test(mail.subject)) return mail
    }
    if (Date.now() - started > timeoutMs) throw new Error(`no email to ${to} with a subject matching ${subject}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The link of an email the app sent (confirmation or reset), as a path the browser can open (with its fragment). */
export function linkIn(email: Email): string {
  const link = /https?:\/\/[^\s"<>]+token=[a-z2-7]+/.exec(email.text)?.[0]
  if (!link) throw new Error(`no link in the email:\n${email.text}`)
  const url = new URL(link)
  return `${url.pathname}${url.search}${url.hash}`
}

/** The token of an emailed link (it rides in the fragment: `#token=…`). */
export function tokenOf(link: string): string {
  const token = new URLSearchParams(new URL(link, 'http://link.invalid').hash.slice(1)).get('token')
  if (!token) throw new Error(`no token in the fragment of ${link}`)
  return token
}
