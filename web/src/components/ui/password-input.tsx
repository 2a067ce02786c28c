import { EyeIcon, EyeOffIcon } from 'lucide-react'
import { useState } from 'react'
import type * as React from 'react'
import { cn } from '#web/lib/utils'
import { Input } from './input'

type PasswordInputProps = Omit<React.ComponentProps<'input'>, 'type'> & {
  id: string
  /** What the toggle names, e.g. "password" → "Show password" / "Hide password". */
  toggleLabel?: string
}

/** A password input with a show/hide button (an icon button with an aria-label). */
export function PasswordInput({ id, toggleLabel = 'password', className, ...props }: PasswordInputProps) {
  const [visible, setVisible] = useState(false)
  return (
    <div className="relative">
      <Input id={id} type={visible ? 'text' : 'password'} className={cn('pr-11', className)} {...props} />
      <button
        type="button"
        aria-label={`${visible ? 'Hide' : 'Show'} ${toggleLabel}`}
        aria-controls={id}
        onClick={() => setVisible((value) => !value)}
        className={cn(
          'absolute inset-y-0 right-0 flex w-10 items-center justify-center rounded-r-md text-muted-foreground transition-colors',
          'hover:text-foreground focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring',
        )}
      >
        {visible ? <EyeOffIcon className="size-4" aria-hidden="true" /> : <EyeIcon className="size-4" aria-hidden="true" />}
      </button>
    </div>
  )
}
