import { z } from 'zod'

/** Why `text()` refused a string (the field is named by the error's path). */
export const TEXT_ERROR = 'must be plain text (no NUL characters or broken Unicode)'

/**
 * True when PostgreSQL can store the string in text and jsonb: no NUL character and no unpaired
 * UTF-16 surrogate (either makes PostgreSQL refuse the whole statement).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value)
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Every NUL character and lone surrogate: what isStorableText refuses. */
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`, 'g')

/**
 * The string as PostgreSQL can store it: without its NUL characters and lone surrogates (for text
 * from outside, such as a model's or a transcriber's, that is kept rather than refused).
 */
export function storableText(value: string): string {
  return value.replace(UNSTORABLE, '')
}

/** At most `max` UTF-16 code units of the string, never ending in half of a surrogate pair. */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value
  return value.slice(0, /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max)
}

/**
 * The one string schema of the app's contract: `z.string()` that refuses what PostgreSQL cannot
 * store, before any other rule runs, so every text field of every route answers 400 naming the
 * field instead of failing in the database. Lint forbids a bare `z.string()` in common/ and routes.
 */
export function text(params?: Parameters<typeof z.string>[0]): z.ZodString {
  return z.string(params).refine(isStorableText, { error: TEXT_ERROR, abort: true })
}
