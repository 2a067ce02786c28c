/**
 * Turning on two-factor sign-in (docs/decisions/072), in three steps on the account page: the
 * current password; then the key, as a QR code to scan with an authenticator app and as text to
 * type in, confirmed with a code from the app; then the 10 recovery codes, shown this once. Staff
 * pages send staff without it here (/account?setup=two-factor&returnTo=…), and "Continue" takes
 * them back.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { CopyIcon } from 'lucide-react'
import { useId, useState, type ReactNode } from 'react'
import { safeReturnTo } from '#common/auth-constants'
import type { RecoveryCodes, TwoFactorSetup as TwoFactorSetupKey } from '#common/two-factor'
import { Button } from '#web/components/ui/button'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { staffKeys } from '#web/features/staff/api'
import { accountKeys, beginTwoFactorSetup, enableTwoFactor } from './api'
import { FormActions, FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError } from './form-support'
import { RecoveryCodesList } from './recovery-codes'

const loadValidation = () => import('./validation')
const setupResolver = lazyResolver(() => loadValidation().then((module) => module.twoFactorSetupResolver))
const enableResolver = lazyResolver(() => loadValidation().then((module) => module.twoFactorEnableResolver))

/**
 * The set-up, in the account page's two-factor section: three steps, the recovery codes last.
 * `returnTo` (from a staff page) is where "Continue" goes at the end; `onClose` ends it otherwise.
 */
export function TwoFactorSetup({ returnTo, onClose }: { returnTo: string | undefined; onClose: () => void }) {
  const navigate = useNavigate()
  const [setup, setSetup] = useState<TwoFactorSetupKey | null>(null)
  const [done, setDone] = useState<RecoveryCodes | null>(null)
  const back = safeReturnTo(returnTo)
  const finish = () => (back ? void navigate({ href: back }) : onClose())

  if (done) {
    return (
      <Step title="Step 3 of 3: Save your recovery codes">
        <p>
          Two-factor sign-in is on. If you lose your phone, each of these codes lets you sign in once instead of a code from the app. Keep them somewhere safe, such as a
          password manager. They won't be shown again.
        </p>
        {done.signedOut > 0 ? (
          <p className="text-sm text-muted-foreground">
            {done.signedOut === 1 ? '1 other device was' : `${done.signedOut} other devices were`} signed out: they'll ask for a code when they sign in again.
          </p>
        ) : null}
        <RecoveryCodesList codes={done.recoveryCodes} />
        <div>
          <Button onClick={finish}>{back ? "I've saved them: continue" : "I've saved them"}</Button>
        </div>
      </Step>
    )
  }
  if (!setup) {
    return (
      <Step title="Step 1 of 3: Confirm it's you" description="Enter your password to start.">
        <PasswordStep onReady={setSetup} onCancel={onClose} />
      </Step>
    )
  }
  return (
    <Step title="Step 2 of 3: Add Momentum Coach to your authenticator app" description="Use an app such as Google Authenticator, Microsoft Authenticator, 1Password or Authy.">
      <KeyStep setup={setup} onEnabled={setDone} onCancel={onClose} />
    </Step>
  )
}

/** One step of the set-up: a titled group (h3) under the section's heading. */
function Step({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="grid gap-4 rounded-lg border p-4">
      <div className="grid gap-1">
        <h3 id={id} className="font-semibold">
          {title}
        </h3>
        {description ? <p className="text-sm text-muted-foreground">{description}</p> : null}
      </div>
      {children}
    </section>
  )
}

function PasswordStep({ onReady, onCancel }: { onReady: (setup: TwoFactorSetupKey) => void; onCancel: () => void }) {
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

function KeyStep({ setup, onEnabled, onCancel }: { setup: TwoFactorSetupKey; onEnabled: (codes: RecoveryCodes) => void; onCancel: () => void }) {
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
        <p className="font-medium">Then enter the code the app shows for Momentum Coach.</p>
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
