import { useMutation } from '@tanstack/react-query'
import { CONSENT_TEXT, formatPhone, PHONE_INPUT_MAX, TERMS_TEXT } from '#common/auth-constants'
import { Button } from '../../../components/ui/button'
import { Checkbox } from '../../../components/ui/checkbox'
import { Field, FieldError, fieldControlProps } from '../../../components/ui/field'
import { Input } from '../../../components/ui/input'
import { Label } from '../../../components/ui/label'
import { PasswordInput } from '../../../components/ui/password-input'
import { toast } from '../../../lib/toast'
import { fieldErrorOf, signupFailureMessage } from '../messages'
import { loadAuthRequests, type SessionUser, type SignupInput } from '../api'
import { useForm } from '../use-form'
import { PendingLabel } from './pending-label'

const loadValidator = () => import('../validation').then((module) => module.validateSignup)

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

export type SignupFormProps = {
  /** The partner program from the link (omitted: the server uses GENERAL). */
  partnerProgram: string | undefined
  onSignedUp: (user: SessionUser) => void
}

/** Create Account (spec 1 §2, §5, §8). */
export function SignupForm({ partnerProgram, onSignedUp }: SignupFormProps) {
  const { values, errors, setValue, setServerError, handleSubmit, setFormElement } = useForm<SignupValues, SignupInput>({
    initialValues: {
      fullName: '',
      email: '',
      phoneNumber: '',
      password: '',
      confirmPassword: '',
      communicationConsent: false,
      termsAccepted: false,
      ...(partnerProgram ? { partnerProgram } : {}),
    },
    loadValidator,
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
    onError: (error) => {
      const fieldError = fieldErrorOf(error, TEXT_FIELDS)
      if (fieldError) setServerError(fieldError.field, fieldError.message)
      void toast({ title: 'Signup failed', description: signupFailureMessage(error), variant: 'destructive' })
    },
  })

  return (
    <form ref={setFormElement} noValidate onSubmit={handleSubmit((body) => signup.mutate(body))} className="grid gap-5">
      <Field id="signup-full-name" label="Full Name" error={errors.fullName}>
        {(control) => (
          <Input
            {...control}
            name="fullName"
            autoComplete="name"
            value={values.fullName}
            onChange={(event) => setValue('fullName', event.target.value)}
          />
        )}
      </Field>
      <Field id="signup-email" label="Email" error={errors.email}>
        {(control) => (
          <Input
            {...control}
            name="email"
            type="email"
            autoComplete="email"
            value={values.email}
            onChange={(event) => setValue('email', event.target.value)}
          />
        )}
      </Field>
      <Field id="signup-phone" label="Phone Number" error={errors.phoneNumber}>
        {(control) => (
          <Input
            {...control}
            name="phoneNumber"
            type="tel"
            inputMode="tel"
            autoComplete="tel-national"
            placeholder="(123) 456-7890"
            maxLength={PHONE_INPUT_MAX}
            value={values.phoneNumber}
            onChange={(event) => setValue('phoneNumber', formatPhone(event.target.value))}
          />
        )}
      </Field>
      <Field id="signup-password" label="Password" error={errors.password}>
        {(control) => (
          <PasswordInput
            {...control}
            name="password"
            autoComplete="new-password"
            value={values.password}
            onChange={(event) => setValue('password', event.target.value)}
          />
        )}
      </Field>
      <Field id="signup-confirm-password" label="Confirm Password" error={errors.confirmPassword}>
        {(control) => (
          <PasswordInput
            {...control}
            name="confirmPassword"
            toggleLabel="confirm password"
            autoComplete="new-password"
            value={values.confirmPassword}
            onChange={(event) => setValue('confirmPassword', event.target.value)}
          />
        )}
      </Field>
      <CheckboxField
        id="signup-consent"
        label={CONSENT_TEXT}
        checked={values.communicationConsent}
        onCheckedChange={(checked) => setValue('communicationConsent', checked)}
        error={errors.communicationConsent}
      />
      <CheckboxField
        id="signup-terms"
        label={TERMS_TEXT}
        checked={values.termsAccepted}
        onCheckedChange={(checked) => setValue('termsAccepted', checked)}
        error={errors.termsAccepted}
      />
      {partnerProgram ? (
        <p className="rounded-md bg-secondary px-3 py-2 text-sm text-secondary-foreground">
          You are joining through the <strong>{partnerProgram}</strong> partner program.
        </p>
      ) : null}
      <Button type="submit" size="lg" disabled={signup.isPending}>
        <PendingLabel pending={signup.isPending} idle="Create Account" busy="Creating account..." />
      </Button>
    </form>
  )
}

function CheckboxField({
  id,
  label,
  checked,
  onCheckedChange,
  error,
}: {
  id: string
  label: string
  checked: boolean
  onCheckedChange: (checked: boolean) => void
  error: string | undefined
}) {
  return (
    <div className="grid gap-2">
      <div className="flex items-start gap-3">
        <Checkbox
          {...fieldControlProps(id, error)}
          checked={checked}
          onCheckedChange={(state) => onCheckedChange(state === true)}
          className="mt-0.5"
        />
        <Label htmlFor={id} className="leading-snug font-normal select-text">
          {label}
        </Label>
      </div>
      <FieldError id={id}>{error}</FieldError>
    </div>
  )
}
