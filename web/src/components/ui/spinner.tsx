import { LoaderCircleIcon } from 'lucide-react'
import { cn } from '#web/lib/utils'

type SpinnerProps = {
  /** What is loading; read by screen readers (the icon itself is hidden from them). */
  label?: string
  /** Show the label next to the spinner instead of only to assistive technology. */
  showLabel?: boolean
  className?: string
  size?: 'sm' | 'md' | 'lg'
}

const sizes = { sm: 'size-4', md: 'size-6', lg: 'size-10' } as const

/** A loading indicator announced politely (role="status") with a text label. */
export function Spinner({ label = 'Loading', showLabel = false, className, size = 'md' }: SpinnerProps) {
  return (
    <span data-slot="spinner" role="status" className={cn('inline-flex items-center gap-2', className)}>
      <LoaderCircleIcon className={cn('animate-spin text-primary', sizes[size])} aria-hidden="true" />
      <span className={showLabel ? 'text-sm text-muted-foreground' : 'sr-only'}>{label}</span>
    </span>
  )
}
