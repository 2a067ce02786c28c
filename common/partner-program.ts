/** The partner program a person signs up under (`?partner=` on the sign-up link), on its own so the sign-up page's URL check loads nothing else. */
export const DEFAULT_PARTNER_PROGRAM = 'GENERAL'
export const PARTNER_PROGRAM_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
