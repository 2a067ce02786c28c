import { Button, type ButtonProps } from '#web/components/ui/button'
import { useLogout } from '#web/features/auth/use-logout'
import { PendingLabel } from './pending-label'

/** Signs out (useLogout) and goes to /auth. The label is the screen's ('Logout', 'Log Out', ...). */
export function LogoutButton({ label = 'Log Out', ...props }: Omit<ButtonProps, 'onClick' | 'children'> & { label?: string }) {
  const { logout, isPending } = useLogout()
  return (
    <Button variant="outline" {...props} disabled={isPending || props.disabled} onClick={() => void logout()}>
      <PendingLabel pending={isPending} idle={label} busy="Logging out..." />
    </Button>
  )
}
