import { CheckIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { Button } from '#web/components/ui/button'
import { cn } from '#web/lib/utils'

/** A toggle button that exposes its state (aria-pressed) and shows it by colour and a tick. */
export function OptionButton({
  pressed,
  onToggle,
  children,
  className,
  label,
}: {
  pressed: boolean
  onToggle: () => void
  children: ReactNode
  className?: string
  /** An accessible name when the visible text alone is not enough. */
  label?: string
}) {
  return (
    <Button
      type="button"
      variant={pressed ? 'default' : 'outline'}
      aria-pressed={pressed}
      aria-label={label}
      onClick={onToggle}
      className={cn('h-auto min-h-10 justify-start text-left whitespace-normal', className)}
    >
      {pressed ? <CheckIcon aria-hidden="true" /> : null}
      {children}
    </Button>
  )
}
