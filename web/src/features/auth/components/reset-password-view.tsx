import { useMutation, useQueryClient } from '@tanstack/react-query'
import { KeyRoundIcon } from 'lucide-react'
import { useNavigate } from '@tanstack/react-router'
import { Card, CardContent, CardDescription, CardHeader } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-error'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { loadAuthRequests, loadAuthValidation, type ResetPasswordInput } from '#web/features/auth/api'
import { failureMessage, fieldErrorOf, INVALID_LINK_MESSAGE, isInvalidLinkError } from '#web/features/auth/messages'
import { startSession } from '#web/features/auth/session'
import { useAuthForm } from '#web/features/auth/use-auth-form'
import { usePostLoginNavigate } from '#web/features/auth/use-post-login-navigate'
import { AuthLayout, AuthProgress } from './auth-layout'
import { BackToSignIn } from './back-to-sign-in'
import { ForgotPasswordForm } from './forgot-password-form'
import { TextField } from './form-fields'
import { PendingLabel } from './pending-label'
import { SubmitButton } from './submit-button'

type ResetPasswordValues = { token: string; password: string; confirmPassword: string }

const resolver = lazyResolver<ResetPasswordValues, ResetPasswordInput>(() => loadAuthValidation().then((module) => module.resetPasswordResolver))

/**
 * /auth?mode=reset#token=…: the emailed reset link; /auth?mode=invite#token=…: a staff invitation
 * (`npm run staff:add`, docs/decisions/072), which chooses the first password the same way. New
 * password, then signed in (after the two-factor code, when that is on) and on into the app.
 */
export function ResetPasswordView({ token, invitation = false }: { token: string | undefined; invitation?: boolean }) {
  useDocumentTitle(invitation ? 'Choose your password' : 'Choose a new password')
  if (!token) return <InvalidResetLink message={INVALID_LINK_MESSAGE} />
  return <ResetPasswordForm token={token} invitation={invitation} />
}

function ResetPasswordForm({ token, invitation }: { token: string; invitation: boolean }) {
  const queryClient = useQueryClient()
  const continueToApp = usePostLoginNavigate()
  const navigate = useNavigate()
  // The token is no field: the schema checks it with the rest, and a malformed one shows as errors.token.
  const { form, submit, setServerError, formProps } = useAuthForm({ defaultValues: { token }, resolver })
  const { errors } = form.formState
  const reset = useMutation({
    mutationFn: async (body: ResetPasswordInput) => (await loadAuthRequests()).resetPassword(body),
    onSuccess: (result) => {
      if (result.kind === 'two-factor') {
        void toast({ title: 'Password updated', description: 'Your password has been changed. Enter your sign-in code to continue.' })
        // The new session waits for the code: the sign-in's code step (the link's token leaves the address).
        return void navigate({ to: '/auth', search: { mode: 'two-factor' }, replace: true })
      }
      startSession(queryClient, result.user)
      void toast({ title: 'Password updated', description: 'Your password has been changed. You are now signed in.' })
      void continueToApp(undefined)
    },
    onError: (error) => {
      if (isInvalidLinkError(error)) return
      const fieldError = fieldErrorOf(error, ['password', 'confirmPassword'] as const)
      if (fieldError) setServerError(fieldError.field, fieldError.message)
      void toast({
        title: 'Password not updated',
        description: failureMessage(error, 'Something went wrong. Please try again.'),
        variant: 'destructive',
      })
    },
  })

  // A malformed token (the shared schema says so) or one the server refuses: the link is no good.
  if (errors.token !== undefined || (reset.isError && isInvalidLinkError(reset.error))) {
    const message = reset.isError && isApiError(reset.error) && reset.error.is('INVALID_TOKEN') ? reset.error.message : INVALID_LINK_MESSAGE
    return <InvalidResetLink message={message} />
  }

  if (reset.isSuccess) {
    return (
      <AuthLayout>
        <AuthProgress title="Password updated">Taking you to your account…</AuthProgress>
      </AuthLayout>
    )
  }

  return (
    <AuthLayout>
      <Card>
        <CardHeader>
          <h1 className="text-2xl leading-tight font-semibold">{invitation ? 'Choose your password' : 'Choose a new password'}</h1>
          <CardDescription>
            {invitation
              ? "Welcome to the Momentum Coach team. Choose the password for your staff account: at least 8 characters. You'll be signed in once it's saved."
              : "Use at least 8 characters. You'll be signed in once it's saved."}
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form {...formProps} onSubmit={submit((body) => reset.mutate(body))} className="grid gap-5">
            <TextField
              form={form}
              name="password"
              id="reset-password"
              label="New Password"
              type="password"
              toggleLabel="new password"
              autoComplete="new-password"
              deps="confirmPassword"
            />
            <TextField
              form={form}
              name="confirmPassword"
              id="reset-confirm-password"
              label="Confirm Password"
              type="password"
              toggleLabel="confirm password"
              autoComplete="new-password"
            />
            <SubmitButton size="lg" disabled={reset.isPending}>
              <PendingLabel pending={reset.isPending} idle={invitation ? 'Save Password' : 'Update Password'} busy={invitation ? 'Saving password...' : 'Updating password...'} />
            </SubmitButton>
          </form>
        </CardContent>
      </Card>
    </AuthLayout>
  )
}

function InvalidResetLink({ message }: { message: string }) {
  return (
    <AuthLayout>
      <Card>
        <CardContent className="flex flex-col gap-4">
          <div className="flex flex-col items-center gap-4 text-center">
            <KeyRoundIcon className="size-10 text-brand-coach" aria-hidden="true" />
            <h1 className="text-2xl font-bold tracking-tight">This reset link can't be used</h1>
            <p className="text-muted-foreground">{message}</p>
          </div>
          <section aria-labelledby="reset-request-heading" className="mt-2 grid gap-3 border-t pt-5">
            <h2 id="reset-request-heading" className="text-lg font-semibold">
              Request a new link
            </h2>
            <ForgotPasswordForm idPrefix="reset-request" submitLabel="Send a new link" />
          </section>
          <BackToSignIn />
        </CardContent>
      </Card>
    </AuthLayout>
  )
}
