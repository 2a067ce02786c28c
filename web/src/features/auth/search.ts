/**
 * The search parameters of /auth. Route options other than components end up in the entry chunk,
 * so this validator is plain TypeScript (zod there would add ~25 KB to every first load); the
 * values are checked again where they are used: returnTo by `safeReturnTo`, partner by the
 * program pattern, token by the server.
 */
import { PARTNER_PROGRAM_PATTERN } from '#common/partner-program'

export const AUTH_TABS = ['login', 'signup'] as const
export type AuthTab = (typeof AUTH_TABS)[number]
const AUTH_MODES = ['two-factor', 'confirm', 'reset', 'invite', 'change-email'] as const
export type AuthMode = (typeof AUTH_MODES)[number]

export type AuthSearch = {
  /** Where to go after login (a path on this site; anything else is ignored). */
  returnTo?: string
  /** Partner program label passed to sign-up. */
  partner?: string
  /**
   * The sign-in's code step (two-factor sign-in), or one of the emailed links: confirm the email,
   * choose a new password (or a staff account's first one), or confirm a new address (the account page).
   */
  mode?: AuthMode
  /** Links sent before the token moved to the fragment (`#token=…`, see `linkToken`). */
  token?: string
  tab?: AuthTab
}

const MAX_LENGTH = 2048

function text(value: unknown): string | undefined {
  // The router parses search values as JSON first, so "123" arrives as a number.
  const string = typeof value === 'number' ? String(value) : value
  return typeof string === 'string' && string.length > 0 && string.length <= MAX_LENGTH ? string : undefined
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value)
}

export function validateAuthSearch(search: Record<string, unknown>): AuthSearch {
  const result: AuthSearch = {}
  const returnTo = text(search.returnTo)
  const partner = text(search.partner)
  const mode = oneOf(search.mode, AUTH_MODES)
  const token = text(search.token)
  const tab = oneOf(search.tab, AUTH_TABS)
  if (returnTo !== undefined) result.returnTo = returnTo
  if (partner !== undefined) result.partner = partner
  if (mode !== undefined) result.mode = mode
  if (token !== undefined) result.token = token
  if (tab !== undefined) result.tab = tab
  return result
}

/** The partner program for sign-up, when the link carried a valid one (else the server's default). */
export function partnerProgramOf(search: AuthSearch): string | undefined {
  const partner = search.partner?.trim()
  return partner && PARTNER_PROGRAM_PATTERN.test(partner) ? partner : undefined
}

/**
 * The token of an emailed link. Links carry it in the fragment (`/auth?mode=reset#token=…`), which
 * the browser never sends to a server, so it reaches no request log, proxy or Referer; a link in
 * the older form (`&token=…` in the query) still works while it is valid.
 */
export function linkToken(search: AuthSearch, hash: string): string | undefined {
  const fromFragment = new URLSearchParams(hash.replace(/^#/, '')).get('token')
  return text(fromFragment ?? undefined) ?? search.token
}
