/**
 * The zod-free part of the auth rules (spec 1 §2, §5, §9): limits, the consent and terms texts,
 * phone formatting and the returnTo check. common/auth.ts re-exports all of it; the web imports
 * it from here so that screens can show these texts without loading zod (~25 KB) up front.
 */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 256
export const PHONE_INPUT_MAX = 14
export const FULL_NAME_MAX = 200
export const EMAIL_MAX = 254

/** The consent text shown at sign-up (spec 1 §2), and its version recorded with the consent. */
export const CONSENT_TEXT_VERSION = '2026-11-01'
export const CONSENT_TEXT =
  'I agree to receive calls and text messages from Momentum Coach. Message frequency varies. Message and data rates may apply. Reply HELP for help or STOP to cancel. Consent is not a condition of purchase.'
export const TERMS_TEXT = 'I agree to the terms of service'

/** Digits only; the form shows them as (123) 456-7890. */
export const digitsOf = (value: string) => value.replace(/\D/g, '')

export function formatPhone(value: string): string {
  const digits = digitsOf(value).slice(0, 10)
  if (digits.length === 0) return ''
  if (digits.length < 4) return `(${digits}`
  if (digits.length < 7) return `(${digits.slice(0, 3)}) ${digits.slice(3)}`
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`
}

/** Spec 1 §4's three, and /staff for a staff account without a plan of its own (docs/decisions/072). */
export const POST_LOGIN_PATHS = ['/dashboard', '/goal-intake', '/payment', '/staff'] as const
export type PostLoginPath = (typeof POST_LOGIN_PATHS)[number]

/**
 * `returnTo` is honoured only when it is a path on this site: starts with one "/", not "//" or "/\",
 * no scheme, no control characters. Anything else falls back to the post-login routing.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined
  if ([...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f' || ch === '\\')) return undefined
  try {
    const url = new URL(value, 'http://same.invalid')
    if (url.origin !== 'http://same.invalid') return undefined
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return undefined
  }
}
