import { useMatches } from '@tanstack/react-router'
import { LoaderCircleIcon } from 'lucide-react'
import { useEffect, useState } from 'react'
import { AUTHENTICATED_LAYOUT_ID, PAID_LAYOUT_ID, type Access } from '#web/features/auth/guards'

/** Spec 1 §9: the protected-route spinner appears after 500 ms. */
const SPINNER_DELAY_MS = 500

function useDelayed(ms: number): boolean {
  const [elapsed, setElapsed] = useState(false)
  useEffect(() => {
    const timer = window.setTimeout(() => setElapsed(true), ms)
    return () => window.clearTimeout(timer)
  }, [ms])
  return elapsed
}

/** 'Verifying access...' (and 'Checking subscription...' on paid screens), the spinner after 500 ms (spec 1 §2, §9). */
export function VerifyingAccess({ access }: { access: Access }) {
  const showSpinner = useDelayed(SPINNER_DELAY_MS)
  return (
    <main id="main-content" aria-busy="true" className="flex min-h-dvh items-center justify-center px-4">
      <div role="status" className="flex flex-col items-center gap-3 text-center">
        <span className="flex size-10 items-center justify-center" aria-hidden="true">
          {showSpinner ? <LoaderCircleIcon data-slot="spinner" className="size-10 animate-spin text-primary" /> : null}
        </span>
        <p className="text-lg font-medium">Verifying access...</p>
        {access === 'paid' ? <p className="text-muted-foreground">Checking subscription...</p> : null}
      </div>
    </main>
  )
}

/** The rule of the screen being shown or opened: none, signed in, or paid (by the guard layouts among its matches). */
export function useScreenAccess(): Access | null {
  return useMatches({
    select: (matches) =>
      matches.some((match) => match.routeId === PAID_LAYOUT_ID)
        ? 'paid'
        : matches.some((match) => match.routeId === AUTHENTICATED_LAYOUT_ID)
          ? 'signed-in'
          : null,
  })
}

/**
 * The pending view of a guarded screen while its beforeLoad waits for GET /api/me: on a first
 * load (the root route's) and when the guard runs again after a failed check. Elsewhere nothing.
 */
export function AccessPending() {
  const access = useScreenAccess()
  return access ? <VerifyingAccess access={access} /> : null
}
