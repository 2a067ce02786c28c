/**
 * The small pieces the Help page, a request's page and the support inbox share: a message box
 * with its label, count and error, the topic list, and the error a field is blamed for.
 */
import { useId } from 'react'
import { SUPPORT_MESSAGE_MAX } from '#common/support'
import { Field } from '#web/components/ui/field'
import { fieldClasses } from '#web/components/ui/input'
import { Textarea } from '#web/components/ui/textarea'
import { isApiError } from '#web/lib/api-client'
import { cn } from '#web/lib/utils'

/** The server's message when it blamed `field` (a 400 or 409 naming it), else undefined. */
export function errorFor(error: unknown, field: string): string | undefined {
  return isApiError(error) && error.field === field ? error.message : undefined
}

/** Whether the error is one a field shows (so no toast repeats it). */
export const isFieldError = (error: unknown, fields: readonly string[]) => isApiError(error) && error.field !== undefined && fields.includes(error.field)

export function MessageField({
  label,
  value,
  onChange,
  error,
  rows = 5,
  hint,
}: {
  label: string
  value: string
  onChange: (value: string) => void
  error: string | undefined
  rows?: number
  hint?: string
}) {
  const id = useId()
  const left = SUPPORT_MESSAGE_MAX - value.length
  return (
    <Field id={id} label={label} error={error} hint={`${hint ? `${hint} ` : ''}${left.toLocaleString('en-US')} characters left.`}>
      {(control) => <Textarea {...control} rows={rows} maxLength={SUPPORT_MESSAGE_MAX} value={value} onChange={(event) => onChange(event.target.value)} />}
    </Field>
  )
}

/** A native select, styled as the app's fields (keyboard and screen readers as the browser gives them). */
export function NativeSelect({ className, ...props }: React.ComponentProps<'select'>) {
  return <select className={cn(fieldClasses, 'h-9 pr-8', className)} {...props} />
}
