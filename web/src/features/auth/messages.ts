/** Server error codes mapped to the spec's texts. */
import { isApiError, NETWORK_ERROR_MESSAGE } from '#web/lib/api-error'

const SIGNUP_NETWORK_MESSAGE =
  'Unable to connect to our servers. Please check your internet connection and try again in a few moments.'

/** The description of the 'Login failed' toast. */
export function loginFailureMessage(error: unknown): string {
  if (!isApiError(error)) return 'Login failed'
  if (error.is('INVALID_CREDENTIALS')) return 'Invalid email or password'
  if (error.isNetworkError) return NETWORK_ERROR_MESSAGE
  return error.message || 'Login failed'
}

/** The description of the 'Signup failed' toast. */
export function signupFailureMessage(error: unknown): string {
  if (!isApiError(error)) return 'There was an issue creating your account'
  if (error.is('EMAIL_TAKEN')) {
    return 'An account with this email already exists. Please try logging in instead.'
  }
  if (error.isNetworkError) return SIGNUP_NETWORK_MESSAGE
  // Too many attempts, or a password among the most common ones: the server says what to do.
  if (error.is('RATE_LIMITED') || error.is('COMMON_PASSWORD')) return error.message
  if (error.is('INVALID_RESPONSE')) return 'Account creation failed - no user data returned'
  if (error.is('VALIDATION_FAILED')) {
    const field = fieldName(error.field)
    if (field === 'email') return 'Please enter a valid email address'
    if (field === 'password' || field === 'confirmPassword') return 'Password must be at least 8 characters long'
  }
  return 'There was an issue creating your account'
}

/** The generic description for other failures: the server's message, or the network text. */
export function failureMessage(error: unknown, fallback: string): string {
  if (!isApiError(error)) return fallback
  if (error.isNetworkError) return NETWORK_ERROR_MESSAGE
  return error.message || fallback
}

function fieldName(field: string | undefined): string | undefined {
  return field?.replace(/^body\./, '')
}

/**
 * A server refusal that names one of the form's fields (VALIDATION_FAILED, COMMON_PASSWORD), as
 * the message to show under that field (the server prefixes validation messages with the field).
 */
export function fieldErrorOf<F extends string>(error: unknown, fields: readonly F[]): { field: F; message: string } | undefined {
  if (!isApiError(error)) return undefined
  if (!error.is('VALIDATION_FAILED') && !error.is('COMMON_PASSWORD')) return undefined
  const name = fieldName(error.field)
  const field = fields.find((candidate) => candidate === name)
  if (!field) return undefined
  const prefix = `${error.field}: `
  return { field, message: error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message }
}

export const INVALID_LINK_MESSAGE = 'This link is invalid or has expired. Please request a new one.'

/** Whether a failure means the emailed link itself is no good (used, expired, unknown or malformed). */
export function isInvalidLinkError(error: unknown): boolean {
  if (!isApiError(error)) return false
  return error.is('INVALID_TOKEN') || (error.is('VALIDATION_FAILED') && fieldName(error.field) === 'token')
}
