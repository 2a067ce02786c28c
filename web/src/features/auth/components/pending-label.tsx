import { LoaderCircleIcon } from 'lucide-react'

/** A button's label: its pending text with a spinner while pending, its idle text otherwise. */
export function PendingLabel({ pending, idle, busy }: { pending: boolean; idle: string; busy: string }) {
  if (!pending) return idle
  return (
    <>
      <LoaderCircleIcon className="animate-spin" aria-hidden="true" />
      {busy}
    </>
  )
}
