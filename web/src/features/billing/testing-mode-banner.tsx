/**
 * The payment testing-mode banner: on every page a signed-in user sees while the server runs in
 * payment testing mode (no Stripe keys, PAYMENT_MODE=testing in production), so nobody mistakes an
 * activation for a real subscription. Fed by check-subscription's `payment_mode`, which the
 * background subscription check (subscription-check.ts) already fetches for a signed-in user;
 * no secret is involved. Loaded lazily by the root layout, so it costs no first-paint bytes.
 *
 * It sits above the page in the normal flow and sets `--app-banner-height` on the document, so
 * screens that fill the viewport exactly (the chat) take it off their height.
 */
import { useQuery } from '@tanstack/react-query'
import { FlaskConicalIcon } from 'lucide-react'
import { useEffect } from 'react'
import { meQueryOptions } from '#web/features/auth/api'
import { subscriptionQueryOptions } from './api'

const BANNER_HEIGHT = '2.25rem'

export default function TestingModeBanner() {
  const user = useQuery({ ...meQueryOptions(), enabled: false }).data
  // Only observes the answer the background check stores (no request of its own).
  const subscription = useQuery({ ...subscriptionQueryOptions(), enabled: false }).data
  const show = Boolean(user) && subscription?.payment_mode === 'testing'

  useEffect(() => {
    if (!show) return
    const root = document.documentElement
    root.style.setProperty('--app-banner-height', BANNER_HEIGHT)
    return () => {
      root.style.removeProperty('--app-banner-height')
    }
  }, [show])

  if (!show) return null
  return (
    <div
      role="region"
      aria-label="Payment testing mode"
      data-testid="testing-mode-banner"
      style={{ height: BANNER_HEIGHT }}
      className="flex items-center justify-center gap-2 overflow-hidden border-b border-amber-300 bg-amber-50 px-3 text-xs whitespace-nowrap text-amber-950 sm:text-sm"
    >
      <FlaskConicalIcon className="size-4 shrink-0" aria-hidden="true" />
      <p className="truncate">
        <strong>Testing mode:</strong> payments are not being taken.
      </p>
    </div>
  )
}
