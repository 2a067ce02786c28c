/**
 * /staff (docs/decisions/072): where a staff member lands after signing in. Who they are here, their
 * roles, and their two-factor sign-in (with a word when few recovery codes are left). The guard
 * (routes/_authenticated/staff.tsx) has loaded it all from GET /api/staff/me.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ShieldCheckIcon } from 'lucide-react'
import { STAFF_ROLE_NAMES, type StaffRole } from '#common/staff-roles'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { formatDateTime } from '#web/lib/date-time'
import { PageShell } from '#web/features/navigation/page-shell'
import { staffMeQueryOptions } from './api'
import { StaffAdmin } from './staff-admin'
import { useStaffRefusal } from './staff-access'

/** The staff pages, each for the roles it serves. */
const STAFF_TOOLS = [
  { to: '/coach', label: 'Coach workspace', roles: ['coach', 'admin'] },
  { to: '/goal-templates', label: 'Goal templates', roles: ['coach', 'admin'] },
  { to: '/support', label: 'Support inbox', roles: ['support', 'admin'] },
  { to: '/ops', label: 'Operations', roles: ['operator'] },
] as const satisfies ReadonlyArray<{ to: '/coach' | '/goal-templates' | '/support' | '/ops'; label: string; roles: readonly StaffRole[] }>

/** Fewer recovery codes than this left: the page suggests new ones. */
const FEW_RECOVERY_CODES = 3

export function StaffPage() {
  useDocumentTitle('Staff')
  const me = useQuery(staffMeQueryOptions())
  const refusal = useStaffRefusal(me.error)
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <header className="space-y-1">
          <h1 className="text-3xl font-bold tracking-tight">Staff</h1>
          <p className="text-muted-foreground">Your staff account at Momentum Coach.</p>
        </header>
        {me.data ? (
          <>
            <SectionCard title="Your roles" description={`Signed in as ${me.data.fullName} (${me.data.email}).`}>
              <ul className="flex flex-wrap gap-2" aria-label="Your staff roles">
                {me.data.roles.map((role) => (
                  <li key={role}>
                    <Badge variant="secondary" className="text-sm">
                      {STAFF_ROLE_NAMES[role]}
                    </Badge>
                  </li>
                ))}
              </ul>
              <p className="mt-4 text-sm text-muted-foreground">Roles are given and taken away by an administrator. Every change is listed under Account activity on your account page.</p>
            </SectionCard>
            {me.data.roles.includes('admin') ? <StaffAdmin selfEmail={me.data.email} /> : null}
            <SectionCard title="Your tools">
              <ul className="flex flex-wrap gap-3" aria-label="Your staff tools">
                {STAFF_TOOLS.filter((tool) => tool.roles.some((role) => me.data.roles.includes(role))).map((tool) => (
                  <li key={tool.to}>
                    <Button asChild variant="outline">
                      <Link to={tool.to}>{tool.label}</Link>
                    </Button>
                  </li>
                ))}
              </ul>
            </SectionCard>
            <SectionCard title="Two-factor sign-in" description="Staff pages need it: your password and a code from your authenticator app.">
              <p className="flex items-center gap-2">
                <ShieldCheckIcon className="size-5 text-brand-coach" aria-hidden="true" />
                <span>
                  On since <time dateTime={me.data.twoFactor.enabledAt}>{formatDateTime(me.data.twoFactor.enabledAt)}</time>.{' '}
                  {me.data.twoFactor.recoveryCodesLeft === 1 ? '1 recovery code left.' : `${me.data.twoFactor.recoveryCodesLeft} recovery codes left.`}
                </span>
              </p>
              {me.data.twoFactor.recoveryCodesLeft < FEW_RECOVERY_CODES ? (
                <p role="status" className="mt-3 text-sm font-medium text-destructive">
                  You are running out of recovery codes. Make new ones on your account page, so you can still sign in without your phone.
                </p>
              ) : null}
              <Button asChild variant="outline" className="mt-4">
                <Link to="/account" hash="two-factor">
                  Manage on your account page
                </Link>
              </Button>
            </SectionCard>
          </>
        ) : me.isError && refusal === undefined ? (
          <p role="alert" className="font-medium text-destructive">
            Unable to load your staff account. Please reload the page.
          </p>
        ) : (
          <div className="flex justify-center py-8">
            <Spinner size="lg" label="Loading your staff account..." showLabel />
          </div>
        )}
      </div>
    </PageShell>
  )
}
