/**
 * /account (issue 16, docs/decisions/050): everything a person can do about their account without
 * asking support, for anyone signed in, paid or not. In order: the profile (name, email, phone),
 * the password, two-factor sign-in, where they are signed in and the account's activity (the audit
 * log's events about them, docs/decisions/072), the call schedule and the channels with the consent
 * history (paid members: the call schedule page's own sections), what is left this month of the
 * plan's voice minutes and messages in the app (paid members), billing, and last the data rights
 * (export, deletion).
 */
import { useQuery } from '@tanstack/react-query'
import { useLocation } from '@tanstack/react-router'
import { RefreshCwIcon } from 'lucide-react'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { meQueryOptions } from '#web/features/auth/api'
import { isPaid } from '#web/features/auth/guards'
import { CallScheduleSettings } from '#web/features/calls/schedule-page'
import { ConsentSection } from '#web/features/consent/consent-section'
import { MemoryLinkSection } from '#web/features/memory/memory-link-section'
import { PageShell } from '#web/features/navigation/page-shell'
import { accountQueryOptions } from './api'
import { BillingSection } from './billing-section'
import { AccountDataSection } from './data-section'
import { ProfileSection } from './profile-section'
import { ActivitySection } from './activity-section'
import { PasswordSection, SessionsSection } from './security-section'
import { TwoFactorSection } from './two-factor-section'
import { UsageSection } from './usage-section'

/**
 * `?setup=two-factor` opens the two-factor sign-in set-up (the staff pages send staff without it
 * here: docs/decisions/072), and `returnTo` is where its end leads (checked where it is followed).
 */
function useTwoFactorSetupSearch(): { setup: boolean; returnTo: string | undefined } {
  const search = useLocation({ select: (location) => location.search as Record<string, unknown> })
  const returnTo = typeof search.returnTo === 'string' && search.returnTo.length <= 2048 ? search.returnTo : undefined
  return { setup: search.setup === 'two-factor', returnTo }
}

export function AccountPage() {
  const twoFactorSetup = useTwoFactorSetupSearch()
  useDocumentTitle('Account')
  // The guard loaded the session; this observes it (the name in the navigation follows changes).
  const user = useQuery({ ...meQueryOptions(), enabled: false }).data
  const account = useQuery(accountQueryOptions())
  const paid = user ? isPaid(user) : false

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <header className="space-y-1">
          <h1 className="text-3xl font-bold tracking-tight">Account</h1>
          <p className="text-muted-foreground">Your profile, security, calls and billing, in one place.</p>
        </header>

        {account.isPending ? (
          <div className="flex justify-center py-8">
            <Spinner size="lg" label="Loading your profile..." showLabel />
          </div>
        ) : account.isError ? (
          <div role="alert" className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-destructive/40 bg-destructive/5 p-4">
            <p className="font-medium text-destructive">Unable to load your profile</p>
            <Button variant="outline" onClick={() => void account.refetch()} disabled={account.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
          </div>
        ) : (
          <ProfileSection account={account.data} />
        )}

        <PasswordSection />
        <TwoFactorSection setup={twoFactorSetup.setup} returnTo={twoFactorSetup.returnTo} />
        <SessionsSection />
        <ActivitySection />

        {/* The call schedule and the channels apply once a plan is chosen (billing says so until then). */}
        {paid ? (
          <>
            <CallScheduleSettings verifyHere={false} />
            <ConsentSection />
            <UsageSection />
            <MemoryLinkSection />
          </>
        ) : null}

        <BillingSection />

        {/* Last: "Export my data" and "Delete my account" (docs/decisions/051). */}
        <AccountDataSection />
      </div>
    </PageShell>
  )
}
