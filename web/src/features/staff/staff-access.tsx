/**
 * What the staff pages share (docs/decisions/072): their error view (StaffAccessError), and
 * useStaffRefusal for a page's own API calls: one refused with TWO_FACTOR_REQUIRED (two-factor
 * sign-in turned off in another tab) sends the person to set it up, and a 404 (no longer staff)
 * is the not-found page.
 */
import { useQueryErrorResetBoundary } from '@tanstack/react-query'
import { Link, useLocation, useNavigate, type ErrorComponentProps } from '@tanstack/react-router'
import { ShieldAlertIcon } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { STAFF_ROLE_NAMES } from '#common/staff-roles'
import { NotFoundPage } from '#web/components/not-found'
import { RouteError } from '#web/components/route-feedback'
import { Button } from '#web/components/ui/button'
import { useDocumentTitle } from '#web/components/use-document-title'
import { PageShell } from '#web/features/navigation/page-shell'
import { StaffRoleRequired, staffRefusal, twoFactorSetupRedirect } from './guards'

/**
 * For a staff page's queries and mutations: pass their error; on TWO_FACTOR_REQUIRED it goes to the
 * set-up (and back here after), on a 404 it shows the not-found page; it returns whether it did.
 */
export function useStaffRefusal(error: unknown): 'setup' | 'not-found' | undefined {
  const navigate = useNavigate()
  const href = useLocation({ select: (location) => location.href })
  const refusal = staffRefusal(error)
  const left = useRef(false)
  useEffect(() => {
    if (refusal !== 'setup' || left.current) return
    left.current = true
    void navigate({ ...twoFactorSetupRedirect(href), replace: true })
  }, [refusal, navigate, href])
  return refusal
}

/**
 * A staff page's errorComponent: its refusal of staff without one of its roles (StaffRoleRequired)
 * as "not available to your role", a refusal of someone not staff as the not-found page, anything
 * else as the usual error view. For the staff pages for some roles only (/staff is for all).
 * @public
 */
export function StaffAccessError(props: ErrorComponentProps) {
  if (props.error instanceof StaffRoleRequired) return <OtherRolesPage roles={props.error.roles} />
  if (staffRefusal(props.error) === 'not-found') return <NotFoundPage />
  return <RouteError {...props} />
}

function OtherRolesPage({ roles }: { roles: StaffRoleRequired['roles'] }) {
  useDocumentTitle('Not available to your role')
  const reset = useQueryErrorResetBoundary()
  useEffect(() => reset.reset(), [reset])
  return (
    <PageShell mainClassName="flex items-center justify-center px-4 py-16">
      <div className="flex max-w-md flex-col items-center gap-3 text-center">
        <ShieldAlertIcon className="size-10 text-brand-coach" aria-hidden="true" />
        <h1 className="text-2xl font-bold tracking-tight">This page is not available to your role</h1>
        <p className="text-muted-foreground">
          It is for {roles.map((role) => STAFF_ROLE_NAMES[role]).join(' or ')} staff. If you need it, ask an administrator to give you that role.
        </p>
        <Button asChild className="mt-4">
          <Link to="/staff">Go to the staff page</Link>
        </Button>
      </div>
    </PageShell>
  )
}
