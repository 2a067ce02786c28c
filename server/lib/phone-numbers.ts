/**
 * Which numbers the product calls and texts: US and Canadian geographic numbers only
 * (docs/decisions/060), judged by libphonenumber's metadata (its "max" set, the one that knows a
 * number's type). The rest of the North American Numbering Plan (+1 876 Jamaica, +1 809 the
 * Dominican Republic, +1 284 the British Virgin Islands...) is international, billed as such, and a
 * classic route for toll fraud; toll-free, premium-rate and personal (5XX) numbers are not a
 * person's phone.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'

const COUNTRIES = new Set(['US', 'CA'])
const TYPES = new Set(['FIXED_LINE', 'MOBILE', 'FIXED_LINE_OR_MOBILE'])

/** Whether ten digits (as accounts store a number) are a US or Canadian geographic number. */
export function isCallableNumber(digits: string): boolean {
  if (digits.length !== 10) return false
  for (let i = 0; i < digits.length; i++) {
    const code = digits.charCodeAt(i)
    if (code < 48 || code > 57) return false
  }
  const number = parsePhoneNumberFromString(`+1${digits}`)
  if (!number?.isValid() || !number.country || !COUNTRIES.has(number.country)) return false
  const type = number.getType()
  return type !== undefined && TYPES.has(type)
}

/** The message a form shows for a number we do not call. */
export const NOT_CALLABLE_MESSAGE = 'Enter a US or Canadian phone number (a mobile or home number, not toll-free).'
