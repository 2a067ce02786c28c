/**
 * The account forms: uncontrolled fields read with FormData on submit, checked with the shared
 * schema (its messages under each field, focus on the first one), and a server's refusal shown
 * under the field it names. Not the sign-in forms' kit (auth/use-form, form-fields, and the
 * password input with its show/hide button): sharing them would split them out of /auth's chunk
 * and put /auth over its first-load budget (ADR 020, 050). Password fields here are plain ones.
 */
import { useEffect, useState, type ChangeEvent, type ComponentProps, type FormEvent, type ReactNode } from 'react'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { PasswordInput } from '#web/components/ui/password-input'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import type { FieldErrors, Validator } from '#web/features/auth/use-form'
import { failureToast } from './form-support'

/** `loadValidator` brings the schema (and zod) on the first submit. */
export function useAccountForm<T>(loadValidator: () => Promise<Validator<T>>) {
  // A callback ref (the state setter): the form element, for moving focus to its first invalid field.
  const [formElement, setFormElement] = useState<HTMLFormElement | null>(null)
  const [errors, setErrors] = useState<FieldErrors>({})
  // Focus moves to the first invalid field once the messages are rendered.
  const [focusRequest, setFocusRequest] = useState(0)
  useEffect(() => {
    if (focusRequest > 0) formElement?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [focusRequest, formElement])
  const focusFirstInvalid = () => setFocusRequest((n) => n + 1)

  return {
    setFormElement,
    errors,
    /** Submits what the fields hold, if the schema accepts it. */
    onSubmit: (onValid: (data: T) => void) => async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault()
      const values = Object.fromEntries(new FormData(event.currentTarget))
      let validate: Validator<T>
      try {
        validate = await loadValidator()
      } catch (error) {
        failureToast('Something went wrong', error)
        return
      }
      const result = validate(values)
      if (!result.success) {
        setErrors(result.errors)
        focusFirstInvalid()
        return
      }
      setErrors({})
      onValid(result.data)
    },
    /** A server's refusal of one field: its message under it, and focus on it. */
    showServerError: (field: string, message: string) => {
      setErrors({ [field]: message })
      focusFirstInvalid()
    },
    /** Clears a field's message once the person edits it. */
    edited: (field: string) => setErrors((current) => (current[field] === undefined ? current : { ...current, [field]: undefined })),
  }
}

export type FormFieldProps = Omit<ComponentProps<'input'>, 'id' | 'name' | 'type'> & {
  id: string
  name: string
  label: ReactNode
  errors: FieldErrors
  type?: 'text' | 'email' | 'tel' | 'password'
  hint?: ReactNode
  /** Rewrites what was typed (the phone number's formatting). */
  format?: (typed: string) => string
  onEdit?: (name: string) => void
}

/** A labelled input with its hint and error message, tied together by its id. */
export function FormField({ id, name, label, errors, type = 'text', hint, format, onEdit, ...input }: FormFieldProps) {
  return (
    <Field id={id} label={label} error={errors[name]} hint={hint}>
      {(control) => {
        const onChange = (event: ChangeEvent<HTMLInputElement>) => {
          if (format) event.currentTarget.value = format(event.currentTarget.value)
          onEdit?.(name)
        }
        // A password can be shown while typed, as on the sign-in forms ("Show current password").
        if (type === 'password') return <PasswordInput {...input} {...control} name={name} onChange={onChange} toggleLabel={typeof label === 'string' ? label.toLowerCase() : 'password'} />
        return <Input {...input} {...control} name={name} type={type} onChange={onChange} />
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
