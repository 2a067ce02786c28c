import { isApiError } from '#web/lib/api-error'
import type { ToastInput } from '#web/lib/toast'

/** "Call me now" refused: what the toast says for each of the server's answers (409s and 429). */
export function callNowErrorToast(error: unknown): ToastInput {
  const message = error instanceof Error ? error.message : 'Please try again.'
  if (!isApiError(error)) return { title: "We couldn't start the call", description: message, variant: 'destructive' }
  if (error.is('CALLS_NOT_CONFIGURED')) return { title: 'Calls are not set up', description: message, variant: 'destructive' }
  if (error.is('CALL_NOT_ELIGIBLE')) return { title: 'We cannot call you right now', description: message, variant: 'destructive' }
  if (error.is('NUMBER_NOT_VERIFIED')) return { title: 'Verify your number first', description: message, variant: 'destructive' }
  if (error.is('NUMBER_STOPPED')) return { title: 'This number texted STOP', description: message, variant: 'destructive' }
  if (error.is('CALL_IN_PROGRESS')) return { title: 'A call is already under way', description: message, variant: 'destructive' }
  if (error.is('RATE_LIMITED')) return { title: 'Too many test calls', description: 'Please wait a few minutes before asking for another one.', variant: 'destructive' }
  return { title: "We couldn't start the call", description: message, variant: 'destructive' }
}

/** "Call me now" accepted. */
export const CALL_NOW_STARTED: ToastInput = { title: 'Calling you now', description: 'Your phone will ring in a moment. The call will show on your dashboard.' }
