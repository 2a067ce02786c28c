/**
 * The auth forms' fields, bound to a react-hook-form form (use-auth-form.ts) by name: each renders
 * its visible label, the control registered with the form, and the error message, tied together by
 * the control's id (label `for`, `aria-invalid`, `aria-describedby` of the message).
 */
import type { ChangeEvent, ComponentProps, ReactNode } from 'react'
import { useFormState, type FieldPathByValue, type FieldValues, type Path, type UseFormReturn } from 'react-hook-form'
import { Checkbox } from '#web/components/ui/checkbox'
import { Field, FieldError, fieldControlProps } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { PasswordInput } from '#web/components/ui/password-input'

type BoundProps<V extends FieldValues, T, Value> = {
  form: UseFormReturn<V, unknown, T>
  /** A field of the form whose value is of type Value. */
  name: FieldPathByValue<V, Value>
  /** The control's id; its label and error message are tied to it. */
  id: string
  label: ReactNode
}

/** The field's message (the schema's or the server's), kept current by a subscription to that field alone. */
function useFieldError<V extends FieldValues, T>(form: UseFormReturn<V, unknown, T>, name: Path<V>): string | undefined {
  const formState = useFormState({ control: form.control, name })
  return form.getFieldState(name, formState).error?.message
}

type TextFieldProps<V extends FieldValues, T> = BoundProps<V, T, string> &
  Omit<ComponentProps<'input'>, 'id' | 'name' | 'value' | 'defaultValue' | 'onChange' | 'onBlur' | 'form' | 'type'> & {
    /** `password` renders the password input with its show/hide button. */
    type?: 'text' | 'email' | 'tel' | 'password'
    /** What the show/hide button names, e.g. "confirm password" → "Show confirm password". */
    toggleLabel?: string
    /** Rewrites what was typed before the form reads it (e.g. the phone number's formatting). */
    format?: (typed: string) => string
    /** Fields whose messages depend on this one's value, checked again when it changes (once submitted). */
    deps?: Path<V>
  }

export function TextField<V extends FieldValues, T>({ form, name, id, label, type, toggleLabel, format, deps, ...input }: TextFieldProps<V, T>) {
  const error = useFieldError(form, name)
  const { onChange, ...registered } = form.register(name, deps ? { deps } : undefined)
  return (
    <Field id={id} label={label} error={error}>
      {(control) => {
        const bound = {
          ...input,
          ...control,
          ...registered,
          onChange: (event: ChangeEvent<HTMLInputElement>) => {
            const formatted = format?.(event.target.value)
            if (formatted !== undefined && formatted !== event.target.value) event.target.value = formatted
            return onChange(event)
          },
        }
        return type === 'password' ? <PasswordInput {...bound} toggleLabel={toggleLabel} /> : <Input {...bound} type={type} />
      }}
    </Field>
  )
}

/** A checkbox with its label beside it and its error message under both. */
export function CheckboxField<V extends FieldValues, T>({ form, name, id, label }: BoundProps<V, T, boolean>) {
  const error = useFieldError(form, name)
  return (
    <div className="grid gap-2">
      <div className="flex items-start gap-3">
        <Checkbox {...fieldControlProps(id, error)} {...form.register(name)} className="mt-0.5" />
        <Label htmlFor={id} className="leading-snug font-normal select-text">
          {label}
        </Label>
      </div>
      <FieldError id={id}>{error}</FieldError>
    </div>
  )
}
