import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, type ReactNode } from 'react'
import { lazyResolver } from '#web/lib/forms'
import { loadAuthRequests, loadAuthValidation, type ForgotPasswordInput } from '#web/features/auth/api'
import { failureMessage, fieldErrorOf } from '#web/features/auth/messages'
import { useAuthForm } from '#web/features/auth/use-auth-form'
import { TextField } from './form-fields'
import { PendingLabel } from './pending-label'
import { SubmitButton } from './submit-button'

const resolver = lazyResolver<{ email: string }, ForgotPasswordInput>(() => loadAuthValidation().then((module) => module.forgotPasswordResolver))

type ForgotPasswordFormProps = {
  /** Prefix of the control ids, so two of these forms never share one. */
  idPrefix: string
  defaultEmail?: string
  submitLabel?: string
  /** Shown under the server's answer once the email is on its way (e.g. a Close button). */
  afterSent?: ReactNode
}

/** Asks for a password reset link (POST /api/auth/forgot-password) and shows the server's answer. */
export function ForgotPasswordForm({ idPrefix, defaultEmail = '', submitLabel = 'Send reset link', afterSent }: ForgotPasswordFormProps) {
  const { form, submit, setServerError, formProps } = useAuthForm({ defaultValues: { email: defaultEmail }, resolver })
  const request = useMutation({
    mutationFn: async (body: ForgotPasswordInput) => (await loadAuthRequests()).requestPasswordReset(body),
    onError: (error) => {
      const fieldError = fieldErrorOf(error, ['email'] as const)
      if (fieldError) setServerError(fieldError.field, fieldError.message)
    },
  })
  const sentRef = useRef<HTMLParagraphElement>(null)
  const sent = request.isSuccess

  useEffect(() => {
    // The form is replaced by the answer; move focus there so it is read and not lost.
    if (sent) sentRef.current?.focus()
  }, [sent])

  if (request.isSuccess) {
    return (
      <div className="grid gap-4">
        <p ref={sentRef} tabIndex={-1} role="status" className="rounded-md bg-secondary px-4 py-3 text-secondary-foreground outline-none">
          {request.data}
        </p>
        {afterSent}
      </div>
    )
  }

  const requestError = request.isError && !fieldErrorOf(request.error, ['email'] as const) ? request.error : undefined
  return (
    <form {...formProps} onSubmit={submit((body) => request.mutate(body))} className="grid gap-4">
      <TextField form={form} name="email" id={`${idPrefix}-email`} label="Email" type="email" autoComplete="email" />
      {requestError ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          {failureMessage(requestError, 'We could not send the email. Please try again.')}
        </p>
      ) : null}
      <SubmitButton disabled={request.isPending}>
        <PendingLabel pending={request.isPending} idle={submitLabel} busy="Sending..." />
      </SubmitButton>
    </form>
  )
}
