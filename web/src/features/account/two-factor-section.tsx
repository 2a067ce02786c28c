/**
 * The account page's two-factor sign-in (docs/decisions/072): off, with its set-up (two-factor-setup.tsx,
 * opened here or by `?setup=two-factor`); or on, since when, the recovery codes left, new recovery
 * codes, and turning it off.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { RefreshCwIcon, ShieldCheckIcon, ShieldOffIcon } from 'lucide-react'
import { useState } from 'react'
import { safeReturnTo } from '#common/auth-constants'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { formatDateTime } from '#web/lib/date-time'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { staffKeys } from '#web/features/staff/api'
import { accountKeys, disableTwoFactor, regenerateRecoveryCodes, twoFactorQueryOptions } from './api'
import { FormActions, FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError, useDisclosure } from './form-support'
import { RecoveryCodesList } from './recovery-codes'
import { TwoFactorSetup } from './two-factor-setup'

const loadValidation = () => import('./validation')
const disableResolver = lazyResolver(() => loadValidation().then((module) => module.twoFactorDisableResolver))
const recoveryCodesResolver = lazyResolver(() => loadValidation().then((module) => module.recoveryCodesResolver))

/** The code field every two-factor form shares: the app's code, or a recovery code. */
export const TWO_FACTOR_CODE_LABEL = 'Code from your authenticator app'
export const TWO_FACTOR_CODE_HINT = 'The 6-digit code the app shows for Momentum Coach, or one of your recovery codes.'

/** `setup`: open the set-up at once (when it is off); `returnTo`: where its end leads (a staff page). */
export function TwoFactorSection({ setup = false, returnTo }: { setup?: boolean; returnTo?: string | undefined }) {
  const status = useQuery(twoFactorQueryOptions())
  const navigate = useNavigate()
  // Decided once the status is known, then kept: turning it on refreshes the status mid-set-up.
  const [setupOpen, setSetupOpen] = useState<boolean | null>(null)
  if (setupOpen === null && status.data) setSetupOpen(setup && !status.data.enabled)
  const back = safeReturnTo(returnTo)
  return (
    <div id="two-factor">
      <SectionCard title="Two-factor sign-in" description="Your password and a code from an authenticator app on your phone, so a stolen password alone cannot open your account.">
        {back ? (
          <p role="status" className="mb-4 rounded-md border border-brand-coach/40 bg-brand-coach/5 p-3 font-medium">
            Staff pages need two-factor sign-in. Set it up here, and you'll go back to the page you asked for.
          </p>
        ) : null}
        {status.isPending ? (
          <Spinner label="Loading your two-factor sign-in..." showLabel />
        ) : status.isError ? (
          <div role="alert" className="flex flex-col items-start gap-3">
            <p className="font-medium text-destructive">Unable to load your two-factor sign-in</p>
            <Button variant="outline" onClick={() => void status.refetch()} disabled={status.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
          </div>
        ) : setupOpen ? (
          <TwoFactorSetup returnTo={returnTo} onClose={() => setSetupOpen(false)} />
        ) : status.data.enabled ? (
          <div className="grid gap-4">
            <TwoFactorOn enabledAt={status.data.enabledAt} recoveryCodesLeft={status.data.recoveryCodesLeft} />
            {back ? (
              <div>
                <Button onClick={() => void navigate({ href: back })}>Continue to the page you asked for</Button>
              </div>
            ) : null}
          </div>
        ) : (
          <div className="flex flex-col items-start gap-3">
            <p className="flex items-center gap-2">
              <ShieldOffIcon className="size-5 text-muted-foreground" aria-hidden="true" />
              Two-factor sign-in is off.
            </p>
            <Button onClick={() => setSetupOpen(true)}>Turn on two-factor sign-in</Button>
          </div>
        )}
      </SectionCard>
    </div>
  )
}

function TwoFactorOn({ enabledAt, recoveryCodesLeft }: { enabledAt: string | null; recoveryCodesLeft: number }) {
  const { open: codesFormOpen, toggleMounted: codesToggle, show: showCodesForm, close: closeCodesForm } = useDisclosure()
  const { open: offFormOpen, toggleMounted: offToggle, show: showOffForm, close: closeOffForm } = useDisclosure()
  const [codes, setCodes] = useState<string[] | null>(null)
  return (
    <div className="grid gap-4">
      <p className="flex items-center gap-2">
        <ShieldCheckIcon className="size-5 text-brand-coach" aria-hidden="true" />
        <span>
          Two-factor sign-in is on{enabledAt ? <> since <time dateTime={enabledAt}>{formatDateTime(enabledAt)}</time></> : null}.{' '}
          {recoveryCodesLeft === 1 ? '1 recovery code left.' : `${recoveryCodesLeft} recovery codes left.`}
        </span>
      </p>
      {codes ? (
        <div className="grid gap-3">
          <p>These new recovery codes replace the earlier ones, which no longer work. Save them now: they won't be shown again.</p>
          <RecoveryCodesList codes={codes} />
          <div>
            <Button variant="outline" onClick={() => setCodes(null)}>
              I've saved them
            </Button>
          </div>
        </div>
      ) : codesFormOpen ? (
        <RecoveryCodesForm
          onDone={(fresh) => {
            setCodes(fresh)
            closeCodesForm()
          }}
          onCancel={closeCodesForm}
        />
      ) : offFormOpen ? (
        <TurnOffForm onCancel={closeOffForm} />
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button ref={codesToggle} variant="outline" onClick={showCodesForm}>
            Get new recovery codes
          </Button>
          <Button ref={offToggle} variant="outline" onClick={showOffForm}>
            Turn off two-factor sign-in
          </Button>
        </div>
      )}
    </div>
  )
}

function RecoveryCodesForm({ onDone, onCancel }: { onDone: (codes: string[]) => void; onCancel: () => void }) {
  const queryClient = useQueryClient()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(recoveryCodesResolver)
  const regenerate = useMutation({
    mutationFn: regenerateRecoveryCodes,
    onSuccess: ({ recoveryCodes }) => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.twoFactor })
      void queryClient.invalidateQueries({ queryKey: accountKeys.activity })
      void queryClient.invalidateQueries({ queryKey: staffKeys.all })
      void toast({ title: 'New recovery codes', description: 'The earlier ones no longer work.' })
      onDone(recoveryCodes)
    },
    onError: (error) => {
      const named = serverFieldError(error, ['code'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('No new recovery codes were made', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => regenerate.mutate(body))} className="grid gap-4 rounded-lg border p-4 sm:max-w-md">
      <FormField form={form} name="code" id="recovery-codes-code" label={TWO_FACTOR_CODE_LABEL} autoComplete="one-time-code" hint={TWO_FACTOR_CODE_HINT} autoFocus />
      <FormActions pending={regenerate.isPending} idle="Make new recovery codes" busy="Making codes..." onCancel={onCancel} />
    </form>
  )
}

function TurnOffForm({ onCancel }: { onCancel: () => void }) {
  const queryClient = useQueryClient()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(disableResolver)
  const disable = useMutation({
    mutationFn: disableTwoFactor,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.all })
      void queryClient.invalidateQueries({ queryKey: staffKeys.all })
      void toast({ title: 'Two-factor sign-in is off', description: 'Signing in now takes only your password.' })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['currentPassword', 'code'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Two-factor sign-in is still on', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => disable.mutate(body))} className="grid gap-4 rounded-lg border p-4 sm:max-w-md">
      <p className="text-sm text-muted-foreground">Staff pages need two-factor sign-in: without it, they ask you to set it up again.</p>
      <FormField form={form} name="currentPassword" id="two-factor-off-password" label="Current Password" type="password" autoComplete="current-password" autoFocus />
      <FormField form={form} name="code" id="two-factor-off-code" label={TWO_FACTOR_CODE_LABEL} autoComplete="one-time-code" hint={TWO_FACTOR_CODE_HINT} />
      <FormActions pending={disable.isPending} idle="Turn off" busy="Turning off..." onCancel={onCancel} />
    </form>
  )
}
