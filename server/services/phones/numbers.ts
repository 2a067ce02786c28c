/**
 * A phone number as the do-not-contact list keys it: the SHA-256 of its E.164 form, hex. The same
 * digest in TypeScript and in SQL (an account's number in a query), so a list entry written from
 * an inbound text's `From` matches the accounts that hold the number.
 */
import { createHash } from 'node:crypto'
import { sql, type SQL } from 'drizzle-orm'

/** Ten digits (how accounts store a number) or E.164 (+1…), as E.164. */
const e164Of = (number: string) => (number.startsWith('+') ? number : `+1${number}`)

/** The digest of a number (ten digits or E.164). */
export const numberDigest = (number: string) => createHash('sha256').update(e164Of(number)).digest('hex')

/** The same digest in SQL, of an expression holding ten digits (an account's number). */
export const numberDigestSql = (digits: SQL | unknown) => sql`encode(sha256(convert_to('+1' || ${digits}, 'UTF8')), 'hex')`
