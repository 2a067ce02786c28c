import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Button, type ButtonProps } from '#web/components/ui/button'
import { meQueryOptions } from '#web/features/auth/api'
import { LogoutButton } from './logout-button'

/**
 * 'Back to Sign In' (goes to /auth). /auth sends a signed-in user straight on into the app, so
 * for a signed-in user this signs out first: going back to sign in means signing in again,
 * possibly with another account. While it is not yet known whether there is a session, it signs
 * out too (harmless without one), so a quick click never lands back in the app.
 */
export function BackToSignIn({ variant = 'ghost', ...props }: Omit<ButtonProps, 'onClick' | 'children' | 'asChild'>) {
  const me = useQuery(meQueryOptions())
  if (me.data || me.isPending) return <LogoutButton variant={variant} label="Back to Sign In" {...props} />
  return (
    <Button asChild variant={variant} {...props}>
      <Link to="/auth">Back to Sign In</Link>
    </Button>
  )
}
