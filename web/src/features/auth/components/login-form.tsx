import { useMutation } from '@tanstack/react-query'
import type { Ref } from 'react'
import { Button } from '#web/components/ui/button'
import { toast } from '#web/lib/toast'
import { lazyResolver } from '#web/lib/forms'
import { loadAuthRequests, loadAuthValidation, type LoginInput, type SessionUser } from '#web/features/auth/api'
import { useAuthForm } from '#web/features/auth/use-auth-form'
import { TextField } from './form-fields'
import { PendingLabel } from './pending-label'
import { SubmitButton } from './submit-button'

type LoginValues = { email: string; password: string }

const resolver = lazyResolver<LoginValues, LoginInput>(() => loadAuthValidation().then((module) => module.loginResolver))

type LoginFormProps = {
  onLoggedIn: (user: SessionUser) => void
  /** The password was right and two-factor sign-in is on: the code comes next (docs/decisions/072). */
  onTwoFactorRequired: () => void
  /** Opens the reset request, with what the user typed as the email. */
  onForgotPassword: (email: string) => void
  /** Warms up the reset request's code (on hover or focus of its button). */
  onForgotPasswordIntent?: () => void
  forgotPasswordRef?: Ref<HTMLButtonElement>
}

/** Login: email and password; toasts 'Success' (or, with two-factor sign-in, hands over to the code step) or 'Login failed'. */
export function LoginForm({ onLoggedIn, onTwoFactorRequired, onForgotPassword, onForgotPasswordIntent, forgotPasswordRef }: LoginFormProps) {
  const { form, submit, setServerError, formProps } = useAuthForm({ resolver })
  const login = useMutation({
    mutationFn: async (body: LoginInput) => (await loadAuthRequests()).logIn(body),
    onSuccess: (result) => {
      if (result.kind === 'two-factor') return onTwoFactorRequired()
      void toast({ title: 'Success', description: "You've been logged in successfully." })
      onLoggedIn(result.user)
    },
    onError: async (error) => {
      const { fieldErrorOf, loginFailureMessage } = await loadAuthValidation()
      const fieldError = fieldErrorOf(error, ['email', 'password'] as const)
      if (fieldError) setServerError(fieldError.field, fieldError.message)
      void toast({ title: 'Login failed', description: loginFailureMessage(error), variant: 'destructive' })
    },
  })

  return (
    <form {...formProps} onSubmit={submit((body) => login.mutate(body))} className="grid gap-5">
      <TextField form={form} name="email" id="login-email" label="Email" type="email" autoComplete="email" />
      <TextField form={form} name="password" id="login-password" label="Password" type="password" autoComplete="current-password" />
      <div className="-mt-2 flex justify-end">
        <Button
          ref={forgotPasswordRef}
          variant="link"
          className="h-auto p-0"
          onClick={() => onForgotPassword(form.getValues('email'))}
          onPointerEnter={onForgotPasswordIntent}
          onFocus={onForgotPasswordIntent}
        >
          Forgot Password?
        </Button>
      </div>
      <SubmitButton size="lg" disabled={login.isPending}>
        <PendingLabel pending={login.isPending} idle="Log In" busy="Logging in..." />
      </SubmitButton>
    </form>
  )
}
