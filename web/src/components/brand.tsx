import { cn } from '#web/lib/utils'

/** The two-colour brand name: "Momentum" in deep indigo, "Coach" in burnt amber. */
export function BrandName({ className }: { className?: string }) {
  return (
    <span className={cn('font-bold tracking-tight', className)}>
      <span className="text-brand-momentum">Momentum</span> <span className="text-brand-coach">Coach</span>
    </span>
  )
}

/** The logo mark: an "M" with a rising arrow. Decorative unless given a label. */
export function LogoMark({ className, label }: { className?: string; label?: string }) {
  const labelled = label !== undefined
  return (
    <svg
      viewBox="0 0 32 32"
      className={cn('size-8 shrink-0', className)}
      role={labelled ? 'img' : undefined}
      aria-label={labelled ? label : undefined}
      aria-hidden={labelled ? undefined : true}
      focusable="false"
    >
      <rect width="32" height="32" rx="8" className="fill-brand-momentum" />
      <path
        d="M7 22V10l5.5 7L18 10v12"
        fill="none"
        stroke="#fff"
        strokeWidth="2.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <path d="M20 19l3-3 3 3M23 16v7" fill="none" stroke="#f59e0b" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  )
}
