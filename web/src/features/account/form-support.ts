/** What the account forms share: where a server's refusal goes (under its field) and the failure toast. */
import { useCallback, useRef, useState } from 'react'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { failureMessage, fieldErrorOf } from '#web/features/auth/messages'

/**
 * A refusal that names one of the form's fields, as the message to show under it: validation and
 * common-password refusals (fieldErrorOf), and the account's own (a wrong current password, an
 * address taken, a wrong code, a number that cannot get texts).
 */
export function serverFieldError<F extends string>(error: unknown, fields: readonly F[]): { field: F; message: string } | undefined {
  const known = fieldErrorOf(error, fields)
  if (known) return known
  if (!isApiError(error)) return undefined
  const field = fields.find((candidate) => candidate === error.field)
  return field ? { field, message: error.message } : undefined
}

/** The destructive toast of a change that did not go through: `title`, and the server's words. */
export function failureToast(title: string, error: unknown): void {
  void toast({
    title: isApiError(error) && error.is('RATE_LIMITED') ? 'Please wait a moment' : title,
    description: failureMessage(error, 'Something went wrong. Please try again.'),
    variant: 'destructive',
  })
}

/**
 * A form shown on demand by a toggle button ("Change email"): `show` opens it (its first field
 * takes focus with autoFocus), `close` puts the toggle back and returns focus to it.
 */
export function useDisclosure() {
  const [open, setOpen] = useState(false)
  const refocus = useRef(false)
  // The toggle's callback ref: called as it mounts again after `close`, it takes focus then.
  const toggleMounted = useCallback((element: HTMLButtonElement | null) => {
    if (element && refocus.current) {
      refocus.current = false
      element.focus()
    }
  }, [])
  return {
    open,
    toggleMounted,
    show: () => setOpen(true),
    close: () => {
      refocus.current = true
      setOpen(false)
    },
  }
}
