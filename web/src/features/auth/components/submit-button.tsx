import { useHydrated } from '@tanstack/react-router'
import { Button, type ButtonProps } from '#web/components/ui/button'

/**
 * The auth forms' submit button. In a prerendered /auth (docs/decisions/052) it is a plain button
 * until the app has hydrated the page: a form the browser submitted by itself would put what was
 * typed, the password included, in the address. Without a submit button, Enter in one of the
 * form's fields does nothing either (the forms have more than one field). Rendered in the browser,
 * it is a submit button from the start.
 */
export function SubmitButton(props: Omit<ButtonProps, 'type' | 'asChild'>) {
  const hydrated = useHydrated()
  return <Button {...props} type={hydrated ? 'submit' : 'button'} />
}
