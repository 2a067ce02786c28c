/**
 * The auth forms' fields, bound to a form (use-form.ts) by name: each renders its visible label,
 * the control with the form's value and change handler, and the error message, tied together by
 * the control's id (label `for`, `aria-invalid`, `aria-describedby` of the message).
 */
import type { ChangeEvent, ComponentProps, ReactNode } from 'react'
import { Checkbox } from '#web/components/ui/checkbox'
import { Field, FieldError, fieldControlProps } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { PasswordInput } from '#web/components/ui/password-input'
import type { FormFields } from '#web/features/auth/use-form'

/** The names of the form's fields whose values are of type T. */
type NameOf<V, T> = { [K in keyof V]: V[K] extends T ? K : never }[keyof V] & string

type BoundProps<V, T> = {
  form: FormFields<V>
  name: NameOf<V, T>
  /** The control's id; its label and error message are tied to it. */
  id: string
  label: ReactNode
}

export type TextFieldProps<V> = BoundProps<V, string> &
  Omit<ComponentProps<'input'>, 'id' | 'name' | 'value' | 'onChange' | 'form' | 'type'> & {
    /** `password` renders the password input with its show/hide button. */
    type?: 'text' | 'email' | 'tel' | 'password'
    /** What the show/hide button names, e.g. "confirm password" → "Show confirm password". */
    toggleLabel?: string
    /** Rewrites what was typed before it is stored (e.g. the phone number's formatting). */
    format?: (typed: string) => string
  }

export function TextField<V>({ form, name, id, label, type, toggleLabel, format, ...input }: TextFieldProps<V>) {
  return (
    <Field id={id} label={label} error={form.errors[name]}>
      {(control) => {
        const bound = {
          ...input,
          ...control,
          name,
          value: form.values[name] as string,
          onChange: (event: ChangeEvent<HTMLInputElement>) =>
            form.setValue(name, (format ? format(event.target.value) : event.target.value) as V[typeof name]),
        }
        return type === 'password' ? <PasswordInput {...bound} toggleLabel={toggleLabel} /> : <Input {...bound} type={type} />
      }}
    </Field>
  )
}

/** A checkbox with its label beside it and its error message under both. */
export function CheckboxField<V>({ form, name, id, label }: BoundProps<V, boolean>) {
  const error = form.errors[name]
  return (
    <div className="grid gap-2">
      <div className="flex items-start gap-3">
        <Checkbox
          {...fieldControlProps(id, error)}
          checked={form.values[name] as boolean}
          onCheckedChange={(state) => form.setValue(name, (state === true) as V[typeof name])}
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
