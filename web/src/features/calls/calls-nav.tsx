import { Link } from '@tanstack/react-router'
import { LayoutDashboardIcon } from 'lucide-react'
import { Button } from '../../components/ui/button'
import { LogoutButton } from '../auth/components/logout-button'

/** The header navigation of the calls pages: back to the dashboard, and log out. */
export function CallsNav() {
  return (
    <nav aria-label="Account" className="flex items-center gap-2">
      <Button asChild variant="ghost" size="sm">
        <Link to="/dashboard">
          <LayoutDashboardIcon aria-hidden="true" />
          Dashboard
        </Link>
      </Button>
      <LogoutButton label="Logout" size="sm" />
    </nav>
  )
}
