import { CheckIcon } from 'lucide-react'
import type * as React from 'react'
import { cn } from '#web/lib/utils'

type CheckboxProps = Omit<React.ComponentProps<'input'>, 'type' | 'className'> & {
  /** Classes for the box (its outer element), e.g. its margin. */
  className?: string
}

/**
 * The platform's checkbox (`<input type="checkbox">`), drawn as a 20 px box that fills with the
 * primary colour and shows a check when ticked; label it with a <Label htmlFor> or aria-label.
 * Space ticks it; Enter does nothing (as for the button-based checkbox it replaced), not even
 * submit its form.
 */
export function Checkbox({ className, onKeyDown, ...props }: CheckboxProps) {
  return (
    <span data-slot="checkbox" className={cn('inline-grid size-5 shrink-0 place-items-center', className)}>
      <input
        type="checkbox"
        className={[
          'peer col-start-1 row-start-1 size-5 appearance-none rounded-[5px] border border-input bg-card shadow-xs transition-colors',
          'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
          'checked:border-primary checked:bg-primary',
          'disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-destructive',
        ].join(' ')}
        onKeyDown={(event) => {
          if (event.key === 'Enter') event.preventDefault()
          onKeyDown?.(event)
        }}
        {...props}
      />
      <CheckIcon
        className="pointer-events-none invisible col-start-1 row-start-1 size-4 text-primary-foreground peer-checked:visible peer-disabled:opacity-60"
        aria-hidden="true"
      />
    </span>
  )
}
