/**
 * /auth?mode=two-factor, the sign-in's second step (docs/decisions/072): after the password (or a
 * password reset), when two-factor sign-in is on, the 6-digit code from the authenticator app, or
 * one of the recovery codes. The session the password began waits for it (15 minutes), across a
 * reload; "Use a different account" ends it. Then on, as after any sign-in (returnTo, or the
 * post-login routing).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { ShieldCheckIcon } from 'lucide-react'
import { useState } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-error'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { loadAuthRequests, loadAuthValidation, type SessionUser } from '#web/features/auth/api'
import { failureMessage, fieldErrorOf } from '#web/features/auth/messages'
import { startSession } from '#web/features/auth/session'
import { useAuthForm } from '#web/features/auth/use-auth-form'
import { usePostLoginNavigate } from '#web/features/auth/use-post-login-navigate'
import { AuthLayout } from './auth-layout'
import { TextField } from './form-fields'
import { PendingLabel } from './pending-label'
import { SubmitButton } from './submit-button'

type CodeValues = { code: string }


const resolver = lazyResolver<CodeValues, CodeValues>(() => loadAuthValidation().then((module) => module.twoFactorSignInResolver))

export default function TwoFactorView({ returnTo }: { returnTo: string | undefined }) {
  useDocumentTitle('Enter your sign-in code')
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const continueToApp = usePostLoginNavigate()
  const onSignedIn = (user: SessionUser) => {
    startSession(queryClient, user)
    void continueToApp(returnTo)
  }
  // Back to the password, keeping where to go after.
  const onStartOver = () => void navigate({ to: '/auth', search: returnTo ? { returnTo } : {}, replace: true })
  return (
    <AuthLayout>
      <TwoFactorStep onSignedIn={onSignedIn} onStartOver={onStartOver} />
    </AuthLayout>
  )
}

type TwoFactorStepProps = {
  /** The code was accepted: the session is signed in. */
  onSignedIn: (user: SessionUser) => void
  /** Back to the password (the waiting session is signed out first). */
  onStartOver: () => void
}

function TwoFactorStep({ onSignedIn, onStartOver }: TwoFactorStepProps) {
  const [recovery, setRecovery] = useState(false)
  const { form, submit, setServerError, formProps } = useAuthForm({ resolver })
  const verify = useMutation({
    mutationFn: async ({ code }: CodeValues) => (await loadAuthRequests()).completeTwoFactor(code),
    onSuccess: (user) => {
      void toast({ title: 'Success', description: "You've been logged in successfully." })
      onSignedIn(user)
    },
    onError: (error) => {
      // The session waited too long (or was signed out elsewhere): the password again.
      if (isApiError(error) && error.is('UNAUTHENTICATED')) {
        void toast({ title: 'Please sign in again', description: 'Too much time passed since you entered your password.', variant: 'destructive' })
        onStartOver()
        return
      }
      const named = fieldErrorOf(error, ['code'] as const)
      const message = named?.message ?? (isApiError(error) && error.field === 'code' ? error.message : undefined)
      if (message) setServerError('code', message)
      void toast({ title: 'Code not accepted', description: failureMessage(error, 'Something went wrong. Please try again.'), variant: 'destructive' })
    },
  })
  const startOver = useMutation({
    mutationFn: async () => (await loadAuthRequests()).logOut(),
    onSettled: () => onStartOver(),
  })

  function switchKind() {
    setRecovery((value) => !value)
    form.reset({ code: '' })
  }

  return (
    <Card>
      <CardHeader>
        <div className="flex items-center gap-3">
          <ShieldCheckIcon className="size-7 shrink-0 text-brand-coach" aria-hidden="true" />
          <h1 className="text-2xl leading-tight font-semibold">Enter your sign-in code</h1>
        </div>
        <CardDescription>
          {recovery
            ? 'Enter one of the recovery codes you saved when you turned on two-factor sign-in. Each code works once.'
            : 'Your account has two-factor sign-in. Open your authenticator app and enter the 6-digit code it shows for Momentum Coach.'}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form {...formProps} onSubmit={submit((body) => verify.mutate(body))} className="grid gap-5">
          {recovery ? (
            <TextField form={form} key="recovery" name="code" id="two-factor-recovery-code" label="Recovery code" autoComplete="off" autoCapitalize="none" spellCheck={false} autoFocus />
          ) : (
            <TextField form={form} key="totp" name="code" id="two-factor-code" label="6-digit code" inputMode="numeric" autoComplete="one-time-code" maxLength={12} autoFocus />
          )}
          <SubmitButton size="lg" disabled={verify.isPending}>
            <PendingLabel pending={verify.isPending} idle="Verify" busy="Verifying..." />
          </SubmitButton>
        </form>
        <div className="flex flex-col items-start gap-1">
          <Button variant="link" className="h-auto p-0" onClick={switchKind}>
            {recovery ? 'Use the code from your authenticator app' : 'Use a recovery code instead'}
          </Button>
          <Button variant="link" className="h-auto p-0" onClick={() => startOver.mutate()} disabled={startOver.isPending}>
            Use a different account
          </Button>
        </div>
      </CardContent>
    </Card>
  )
}
