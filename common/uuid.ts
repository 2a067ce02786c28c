/**
 * A UUID in its text form, of any version and in either case: what a PostgreSQL `uuid` column
 * accepts. An id that is not one cannot name a row (a lookup answers "not found" without asking
 * the database, which would refuse the statement).
 */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether the string is a UUID (UUID_PATTERN). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}
