/**
 * The account page's security (issue 16): the password (the current one first; every other device
 * is signed out, and an email says so) and where the person is signed in: each session's browser
 * and OS, when it began and was last seen, with "Sign out" and "Sign out everywhere else".
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { MonitorIcon, RefreshCwIcon, SmartphoneIcon, TabletIcon } from 'lucide-react'
import { useId, useState } from 'react'
import type { AccountSession } from '#common/account'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { accountKeys, changePassword, sessionsQueryOptions, signOutOtherSessions, signOutSession, twoFactorQueryOptions } from './api'
import { FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError } from './form-support'
import { TWO_FACTOR_CODE_HINT, TWO_FACTOR_CODE_LABEL } from './two-factor-section'
import { formatDateTime } from '#web/lib/date-time'

const loadValidation = () => import('./validation')
const passwordChangeResolver = lazyResolver(() => loadValidation().then((module) => module.passwordChangeResolver))

const devices = (count: number) => `${count} other ${count === 1 ? 'device was' : 'devices were'} signed out`

export function PasswordSection() {
  // A new form (empty fields) after each change.
  const [generation, setGeneration] = useState(0)
  return (
    <SectionCard title="Password" description="Changing your password signs you out everywhere else. We'll email you when it changes.">
      <PasswordForm key={generation} onChanged={() => setGeneration((n) => n + 1)} />
    </SectionCard>
  )
}

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const queryClient = useQueryClient()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(passwordChangeResolver)
  // With two-factor sign-in on, its code too (docs/decisions/072).
  const twoFactorOn = useQuery(twoFactorQueryOptions()).data?.enabled === true
  const change = useMutation({
    mutationFn: changePassword,
    onSuccess: ({ signedOut }) => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.sessions })
      void toast({
        title: 'Password changed',
        description: `You're still signed in here${signedOut > 0 ? `; ${devices(signedOut)}` : ''}. We emailed you about the change.`,
      })
      onChanged()
    },
    onError: (error) => {
      const named = serverFieldError(error, ['currentPassword', 'newPassword', 'confirmPassword', 'twoFactorCode'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your password was not changed', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => change.mutate(body))} className="grid gap-4 sm:max-w-md">
      <FormField
        form={form}
        name="currentPassword"
        id="account-current-password"
        label="Current Password"
        type="password"
        autoComplete="current-password"
      />
      <FormField
        form={form}
        name="newPassword"
        id="account-new-password"
        label="New Password"
        type="password"
        autoComplete="new-password"
        hint="At least 8 characters. Very common passwords are refused."
      />
      <FormField
        form={form}
        name="confirmPassword"
        id="account-confirm-password"
        label="Confirm New Password"
        type="password"
        autoComplete="new-password"
      />
      {twoFactorOn ? (
        <FormField form={form} name="twoFactorCode" id="account-password-code" label={TWO_FACTOR_CODE_LABEL} autoComplete="one-time-code" hint={TWO_FACTOR_CODE_HINT} />
      ) : null}
      <div>
        <Button type="submit" disabled={change.isPending}>
          <PendingLabel pending={change.isPending} idle="Change password" busy="Changing password..." />
        </Button>
      </div>
    </form>
  )
}

/** "Chrome 131 on macOS", or what is known of it. */
function sessionName(session: Pick<AccountSession, 'browser' | 'os'>): string {
  if (session.browser && session.os) return `${session.browser} on ${session.os}`
  return session.browser ?? session.os ?? 'Unknown browser'
}

const DeviceIcon = ({ device }: { device: AccountSession['device'] }) => {
  const Icon = device === 'mobile' ? SmartphoneIcon : device === 'tablet' ? TabletIcon : MonitorIcon
  return <Icon className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
}

export function SessionsSection() {
  const query = useQuery(sessionsQueryOptions())
  const queryClient = useQueryClient()
  const signOutOthers = useMutation({
    mutationFn: signOutOtherSessions,
    onSuccess: ({ signedOut }) => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.sessions })
      void toast({ title: 'Signed out everywhere else', description: signedOut > 0 ? `${devices(signedOut)}.` : 'No other device was signed in.' })
    },
    onError: (error) => failureToast('Not signed out', error),
  })
  const others = query.data?.filter((session) => !session.current).length ?? 0
  return (
    <SectionCard title="Where you're signed in" description="The browsers and devices signed in to your account. Sign out any you don't recognise.">
      {query.isPending ? (
        <Spinner label="Loading your sessions..." showLabel />
      ) : query.isError ? (
        <div role="alert" className="flex flex-col items-start gap-3">
          <p className="font-medium text-destructive">Unable to load where you're signed in</p>
          <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
            <RefreshCwIcon aria-hidden="true" />
            Try Again
          </Button>
        </div>
      ) : (
        <div className="space-y-4">
          <ul className="divide-y rounded-md border" aria-label="Signed-in sessions">
            {query.data.map((session) => (
              <SessionRow key={session.id} session={session} />
            ))}
          </ul>
          {others > 0 ? (
            <Button variant="outline" onClick={() => signOutOthers.mutate()} disabled={signOutOthers.isPending}>
              <PendingLabel pending={signOutOthers.isPending} idle="Sign out everywhere else" busy="Signing out..." />
            </Button>
          ) : (
            <p className="text-sm text-muted-foreground">You're not signed in anywhere else.</p>
          )}
        </div>
      )}
    </SectionCard>
  )
}

function SessionRow({ session }: { session: AccountSession }) {
  const queryClient = useQueryClient()
  const nameId = useId()
  const name = sessionName(session)
  const signOut = useMutation({
    mutationFn: () => signOutSession(session.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.sessions })
      void toast({ title: 'Signed out', description: `${name} is signed out.` })
    },
    onError: (error) => {
      // Already gone (signed out elsewhere, expired): the list catches up.
      void queryClient.invalidateQueries({ queryKey: accountKeys.sessions })
      failureToast('Not signed out', error)
    },
  })
  return (
    <li className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center" data-testid="session-row">
      <div className="flex flex-1 gap-3">
        <DeviceIcon device={session.device} />
        <div className="min-w-0 space-y-0.5">
          <p className="flex flex-wrap items-center gap-2 font-medium">
            <span id={nameId}>{name}</span>
            {session.current ? <Badge variant="secondary">This device</Badge> : null}
          </p>
          <p className="text-sm text-muted-foreground">
            Signed in <time dateTime={session.createdAt}>{formatDateTime(session.createdAt)}</time>
            {' · '}
            {session.current ? (
              'Active now'
            ) : (
              <>
                Last seen <time dateTime={session.lastSeenAt}>{formatDateTime(session.lastSeenAt)}</time>
              </>
            )}
          </p>
        </div>
      </div>
      {session.current ? null : (
        <Button variant="outline" size="sm" aria-describedby={nameId} onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          <PendingLabel pending={signOut.isPending} idle="Sign out" busy="Signing out..." />
        </Button>
      )}
    </li>
  )
}
