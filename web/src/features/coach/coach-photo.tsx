/** A coach's photo (docs/decisions/080), or their initials when they have none: a circle of a fixed size. */
import { cn } from '#web/lib/utils'

const SIZES = { md: { pixels: 64, className: 'size-16 text-xl' }, lg: { pixels: 96, className: 'size-24 text-3xl' } } as const

/** "Dana Lee" → "DL"; a single name gives one letter. */
function initialsOf(fullName: string): string {
  const names = fullName.trim().split(/\s+/).filter(Boolean)
  const first = (name: string | undefined) => (name ? Array.from(name)[0]! : '')
  return (first(names[0]) + (names.length > 1 ? first(names[names.length - 1]) : '')).toUpperCase()
}

export function CoachPhoto({ fullName, photoUrl, size = 'md' }: { fullName: string; photoUrl: string | null; size?: keyof typeof SIZES }) {
  const { pixels, className } = SIZES[size]
  if (photoUrl) return <img src={photoUrl} alt={fullName} width={pixels} height={pixels} className={cn('shrink-0 rounded-full bg-muted object-cover', className)} />
  // The name is always written beside it: the initials are decoration.
  return (
    <span aria-hidden="true" className={cn('inline-flex shrink-0 items-center justify-center rounded-full bg-muted font-semibold text-muted-foreground', className)}>
      {initialsOf(fullName)}
    </span>
  )
}
