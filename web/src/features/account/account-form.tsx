/**
 * The account forms, on react-hook-form (docs/decisions/067): uncontrolled fields, checked with
 * the shared schema on submit only (its messages under each field, focus on the first one); a
 * message goes once its field is edited, and a server's refusal shows under the field it names.
 * Not the sign-in forms' fields (auth/components/form-fields): these have a hint, and clear their
 * message on edit instead of checking again. Password fields here use the sign-in forms'
 * show/hide `PasswordInput`.
 */
import type { ChangeEvent, ComponentProps, ReactNode } from 'react'
import { useForm, useFormState, type FieldPathByValue, type FieldValues, type Path, type UseFormReturn } from 'react-hook-form'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { PasswordInput } from '#web/components/ui/password-input'
import { isResolverUnavailable, useFocusFirstInvalid, type LazyResolver } from '#web/lib/forms'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { failureToast } from './form-support'

/**
 * An account form: `resolver` (lazyResolver) brings the schema (and zod) on the first submit.
 * No message before a submit, and none checked again while editing (`reValidateMode: 'onSubmit'`).
 */
export function useAccountForm<V extends FieldValues, T>(resolver: LazyResolver<V, T>) {
  const form = useForm<V, unknown, T>({ mode: 'onSubmit', reValidateMode: 'onSubmit', criteriaMode: 'firstError', shouldFocusError: false, resolver })
  const { formRef, focusFirstInvalid } = useFocusFirstInvalid()

  return {
    form,
    /** The <form>'s ref, for moving focus to its first invalid field. */
    formRef,
    /** Submits what the fields hold, if the schema accepts it. */
    onSubmit: (onValid: (data: T) => void) =>
      form.handleSubmit(onValid, (errors) => {
        if (isResolverUnavailable(errors)) failureToast('Something went wrong', undefined)
        else focusFirstInvalid()
      }),
    /** A server's refusal of one field: its message under it (the only one), and focus on it. */
    showServerError: (field: Path<V>, message: string) => {
      form.clearErrors()
      form.setError(field, { type: 'server', message })
      focusFirstInvalid()
    },
  }
}

type FormFieldProps<V extends FieldValues, T> = Omit<ComponentProps<'input'>, 'id' | 'name' | 'type' | 'form' | 'onChange' | 'onBlur'> & {
  form: UseFormReturn<V, unknown, T>
  id: string
  /** A text field of the form (an optional one too: the code asked only with two-factor sign-in on). */
  name: FieldPathByValue<V, string | undefined>
  label: ReactNode
  type?: 'text' | 'email' | 'tel' | 'password'
  hint?: ReactNode
  /** Rewrites what was typed (the phone number's formatting). */
  format?: (typed: string) => string
}

/** A labelled input with its hint and error message, tied together by its id; editing it clears its message. */
export function FormField<V extends FieldValues, T>({ form, id, name, label, type = 'text', hint, format, ...input }: FormFieldProps<V, T>) {
  const formState = useFormState({ control: form.control, name })
  const error = form.getFieldState(name, formState).error?.message
  const registered = form.register(name, {
    onChange: () => {
      if (form.getFieldState(name).error) form.clearErrors(name)
    },
  })
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {(control) => {
        const onChange = (event: ChangeEvent<HTMLInputElement>) => {
          const formatted = format?.(event.target.value)
          if (formatted !== undefined && formatted !== event.target.value) event.target.value = formatted
          return registered.onChange(event)
        }
        const bound = { ...input, ...control, ...registered, onChange }
        // A password can be shown while typed, as on the sign-in forms ("Show current password").
        if (type === 'password') return <PasswordInput {...bound} toggleLabel={typeof label === 'string' ? label.toLowerCase() : 'password'} />
        return <Input {...bound} type={type} />
      }}
    </Field>
  )
}

/** A change form's buttons: submit (its pending text while it runs) and Cancel. */
export function FormActions({ pending, idle, busy, onCancel }: { pending: boolean; idle: string; busy: string; onCancel: () => void }) {
  return (
    <div className="flex flex-wrap gap-2">
      <Button type="submit" disabled={pending}>
        <PendingLabel pending={pending} idle={idle} busy={busy} />
      </Button>
      <Button type="button" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  )
}
