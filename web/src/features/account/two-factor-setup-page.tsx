/**
 * /account/two-factor (docs/decisions/072): turning on two-factor sign-in, in three steps. The
 * current password; then the key, as a QR code to scan with an authenticator app and as text to
 * type in, confirmed with a code from the app; then the 10 recovery codes, shown this once. Staff
 * pages send staff without it here (with returnTo), and "Continue" takes them back.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { CopyIcon, ShieldCheckIcon } from 'lucide-react'
import { useState } from 'react'
import { safeReturnTo } from '#common/auth-constants'
import type { RecoveryCodes, TwoFactorSetup } from '#common/two-factor'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { formatDateTime } from '#web/lib/date-time'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { staffKeys } from '#web/features/staff/api'
import { accountKeys, beginTwoFactorSetup, enableTwoFactor, twoFactorQueryOptions } from './api'
import { FormActions, FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError } from './form-support'
import { RecoveryCodesList } from './recovery-codes'

const loadValidation = () => import('./validation')
const setupResolver = lazyResolver(() => loadValidation().then((module) => module.twoFactorSetupResolver))
const enableResolver = lazyResolver(() => loadValidation().then((module) => module.twoFactorEnableResolver))

export function TwoFactorSetupPage({ returnTo }: { returnTo: string | undefined }) {
  useDocumentTitle('Turn on two-factor sign-in')
  const navigate = useNavigate()
  const status = useQuery(twoFactorQueryOptions())
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null)
  const [done, setDone] = useState<RecoveryCodes | null>(null)
  const back = safeReturnTo(returnTo)
  const leave = () => (back ? navigate({ href: back }) : navigate({ to: '/account' }))

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <header className="space-y-2">
          <h1 className="text-3xl font-bold tracking-tight">Turn on two-factor sign-in</h1>
          <p className="text-muted-foreground">
            With two-factor sign-in, signing in takes your password and a 6-digit code from an authenticator app on your phone, so a stolen password alone cannot open your account.
          </p>
          {back ? (
            <p role="status" className="rounded-md border border-brand-coach/40 bg-brand-coach/5 p-3 font-medium">
              Staff pages need two-factor sign-in. Set it up here, and you'll go back to the page you asked for.
            </p>
          ) : null}
        </header>

        {done ? (
          <SectionCard title="Step 3 of 3: Save your recovery codes" description="Two-factor sign-in is on.">
            <div className="grid gap-4">
              <p>
                If you lose your phone, each of these codes lets you sign in once instead of a code from the app. Keep them somewhere safe, such as a password manager. They won't be
                shown again.
              </p>
              {done.signedOut > 0 ? (
                <p className="text-sm text-muted-foreground">
                  {done.signedOut === 1 ? '1 other device was' : `${done.signedOut} other devices were`} signed out: they'll ask for a code when they sign in again.
                </p>
              ) : null}
              <RecoveryCodesList codes={done.recoveryCodes} />
              <div>
                <Button onClick={() => void leave()}>{back ? "I've saved them: continue" : "I've saved them: back to my account"}</Button>
              </div>
            </div>
          </SectionCard>
        ) : status.isPending ? (
          <div className="flex justify-center py-8">
            <Spinner size="lg" label="Loading..." showLabel />
          </div>
        ) : status.data?.enabled ? (
          <SectionCard title="Two-factor sign-in is already on" description={status.data.enabledAt ? `Since ${formatDateTime(status.data.enabledAt)}.` : undefined}>
            <div className="flex flex-wrap gap-2">
              {back ? (
                <Button onClick={() => void leave()}>Continue</Button>
              ) : (
                <Button asChild>
                  <Link to="/account" hash="two-factor">
                    Back to my account
                  </Link>
                </Button>
              )}
            </div>
          </SectionCard>
        ) : !setup ? (
          <SectionCard title="Step 1 of 3: Confirm it's you" description="Enter your password to start.">
            <PasswordStep onReady={setSetup} onCancel={() => void leave()} />
          </SectionCard>
        ) : (
          <SectionCard title="Step 2 of 3: Add Momentum Coach to your authenticator app" description="Use an app such as Google Authenticator, Microsoft Authenticator, 1Password or Authy.">
            <KeyStep setup={setup} onEnabled={setDone} onCancel={() => void leave()} />
          </SectionCard>
        )}
      </div>
    </PageShell>
  )
}

function PasswordStep({ onReady, onCancel }: { onReady: (setup: TwoFactorSetup) => void; onCancel: () => void }) {
  const { form, formRef, onSubmit, showServerError } = useAccountForm(setupResolver)
  const begin = useMutation({
    mutationFn: beginTwoFactorSetup,
    onSuccess: onReady,
    onError: (error) => {
      const named = serverFieldError(error, ['currentPassword'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Two-factor sign-in was not started', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => begin.mutate(body))} className="grid gap-4 sm:max-w-md">
      <FormField form={form} name="currentPassword" id="two-factor-setup-password" label="Current Password" type="password" autoComplete="current-password" autoFocus />
      <FormActions pending={begin.isPending} idle="Continue" busy="Checking..." onCancel={onCancel} />
    </form>
  )
}

function KeyStep({ setup, onEnabled, onCancel }: { setup: TwoFactorSetup; onEnabled: (codes: RecoveryCodes) => void; onCancel: () => void }) {
  const queryClient = useQueryClient()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(enableResolver)
  const enable = useMutation({
    mutationFn: enableTwoFactor,
    onSuccess: (codes) => {
      void queryClient.invalidateQueries({ queryKey: accountKeys.all })
      void queryClient.invalidateQueries({ queryKey: staffKeys.all })
      void toast({ title: 'Two-factor sign-in is on', description: 'Save your recovery codes now: they are shown only once.' })
      onEnabled(codes)
    },
    onError: (error) => {
      const named = serverFieldError(error, ['code'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Two-factor sign-in was not turned on', error)
    },
  })
  async function copyKey() {
    try {
      await navigator.clipboard.writeText(setup.secret.replace(/ /g, ''))
      void toast({ title: 'Copied', description: 'The key is on the clipboard.' })
    } catch {
      void toast({ title: 'Not copied', description: 'Your browser did not allow copying. Select the key and copy it.', variant: 'destructive' })
    }
  }
  return (
    <div className="grid gap-6">
      <div className="grid gap-4 sm:grid-cols-[auto_1fr] sm:items-start">
        <img
          src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrCodeSvg)}`}
          alt="QR code to add Momentum Coach to your authenticator app"
          width={200}
          height={200}
          className="rounded-md border bg-white"
        />
        <div className="grid gap-2">
          <p>In the app, add an account and scan this QR code.</p>
          <p className="text-sm text-muted-foreground">Can't scan it? Choose to enter a key instead, and type this one (time-based):</p>
          <p>
            <code className="rounded bg-muted px-2 py-1 font-mono text-base break-all" data-testid="two-factor-secret">
              {setup.secret}
            </code>
          </p>
          <div>
            <Button type="button" variant="outline" size="sm" onClick={() => void copyKey()}>
              <CopyIcon aria-hidden="true" />
              Copy key
            </Button>
          </div>
        </div>
      </div>
      <form ref={formRef} noValidate onSubmit={onSubmit((body) => enable.mutate(body))} className="grid gap-4 sm:max-w-md">
        <p className="flex items-center gap-2 font-medium">
          <ShieldCheckIcon className="size-5 text-brand-coach" aria-hidden="true" />
          Then enter the code the app shows for Momentum Coach
        </p>
        <FormField
          form={form}
          name="code"
          id="two-factor-setup-code"
          label="6-digit code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={12}
          hint="The app shows a new code every 30 seconds."
        />
        <FormActions pending={enable.isPending} idle="Turn on" busy="Turning on..." onCancel={onCancel} />
      </form>
    </div>
  )
}
