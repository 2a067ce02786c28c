import type { ReactNode } from 'react'
import { cn } from '#web/lib/utils'
import { Label } from './label'

/** The attributes that tie a control to its label and its error message. */
type FieldControlProps = {
  id: string
  'aria-invalid': true | undefined
  'aria-describedby': string | undefined
}

export function fieldControlProps(id: string, error: string | undefined, describedBy?: string): FieldControlProps {
  const ids = [error ? `${id}-error` : undefined, describedBy].filter(Boolean).join(' ')
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': ids || undefined }
}

/** A field's error message, announced with the control (aria-describedby) and shown under it. */
export function FieldError({ id, children }: { id: string; children?: ReactNode }) {
  if (!children) return null
  return (
    <p id={`${id}-error`} className="text-sm font-medium text-destructive">
      {children}
    </p>
  )
}

type FieldProps = {
  id: string
  label: ReactNode
  error?: string | undefined
  /** Extra text under the control (e.g. a format hint), linked with aria-describedby. */
  hint?: ReactNode
  className?: string
  /** Renders the control with the given id and ARIA attributes. */
  children: (control: FieldControlProps) => ReactNode
}

/** Label, control and error message, wired for assistive technology. */
export function Field({ id, label, error, hint, className, children }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined
  return (
    <div className={cn('grid gap-2', className)}>
      <Label htmlFor={id}>{label}</Label>
      {children(fieldControlProps(id, error, hintId))}
      {hint ? (
        <p id={hintId} className="text-sm text-muted-foreground">
          {hint}
        </p>
      ) : null}
      <FieldError id={id}>{error}</FieldError>
    </div>
  )
}
