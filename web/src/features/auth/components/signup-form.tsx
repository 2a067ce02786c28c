import { useMutation } from '@tanstack/react-query'
import { CONSENT_TEXT, formatPhone, PHONE_INPUT_MAX, TERMS_TEXT } from '#common/auth-constants'
import { toast } from '#web/lib/toast'
import { lazyResolver } from '#web/lib/forms'
import { loadAuthRequests, loadAuthValidation, type SessionUser, type SignupInput } from '#web/features/auth/api'
import { useAuthForm } from '#web/features/auth/use-auth-form'
import { CheckboxField, TextField } from './form-fields'
import { PendingLabel } from './pending-label'
import { SubmitButton } from './submit-button'

const TEXT_FIELDS = ['fullName', 'email', 'phoneNumber', 'password', 'confirmPassword'] as const

type SignupValues = {
  fullName: string
  email: string
  phoneNumber: string
  password: string
  confirmPassword: string
  communicationConsent: boolean
  termsAccepted: boolean
  partnerProgram?: string
}

const resolver = lazyResolver<SignupValues, SignupInput>(() => loadAuthValidation().then((module) => module.signupResolver))

type SignupFormProps = {
  /** The partner program from the link (omitted: the server uses GENERAL). */
  partnerProgram: string | undefined
  onSignedUp: (user: SessionUser) => void
}

/** Create Account. */
export function SignupForm({ partnerProgram, onSignedUp }: SignupFormProps) {
  // The fields take what they hold (prerendered, they may be typed in or ticked before hydration).
  const { form, submit, setServerError, formProps } = useAuthForm({
    defaultValues: partnerProgram ? { partnerProgram } : {},
    resolver,
  })
  const signup = useMutation({
    mutationFn: async (body: SignupInput) => (await loadAuthRequests()).signUp(body),
    onSuccess: (user) => {
      void toast({
        title: 'Account created',
        description: 'Your account has been created successfully. Please complete your payment to continue.',
      })
      onSignedUp(user)
    },
    onError: async (error) => {
      const { fieldErrorOf, signupFailureMessage } = await loadAuthValidation()
      const fieldError = fieldErrorOf(error, TEXT_FIELDS)
      if (fieldError) setServerError(fieldError.field, fieldError.message)
      void toast({ title: 'Signup failed', description: signupFailureMessage(error), variant: 'destructive' })
    },
  })

  return (
    <form {...formProps} onSubmit={submit((body) => signup.mutate(body))} className="grid gap-5">
      <TextField form={form} name="fullName" id="signup-full-name" label="Full Name" autoComplete="name" />
      <TextField form={form} name="email" id="signup-email" label="Email" type="email" autoComplete="email" />
      <TextField
        form={form}
        name="phoneNumber"
        id="signup-phone"
        label="Phone Number"
        type="tel"
        inputMode="tel"
        autoComplete="tel-national"
        placeholder="(123) 456-7890"
        maxLength={PHONE_INPUT_MAX}
        format={formatPhone}
      />
      <TextField form={form} name="password" id="signup-password" label="Password" type="password" autoComplete="new-password" deps="confirmPassword" />
      <TextField
        form={form}
        name="confirmPassword"
        id="signup-confirm-password"
        label="Confirm Password"
        type="password"
        toggleLabel="confirm password"
        autoComplete="new-password"
      />
      <CheckboxField form={form} name="communicationConsent" id="signup-consent" label={CONSENT_TEXT} />
      <CheckboxField form={form} name="termsAccepted" id="signup-terms" label={TERMS_TEXT} />
      {partnerProgram ? (
        <p className="rounded-md bg-secondary px-3 py-2 text-sm text-secondary-foreground">
          You are joining through the <strong>{partnerProgram}</strong> partner program.
        </p>
      ) : null}
      <SubmitButton size="lg" disabled={signup.isPending}>
        <PendingLabel pending={signup.isPending} idle="Create Account" busy="Creating account..." />
      </SubmitButton>
    </form>
  )
}
