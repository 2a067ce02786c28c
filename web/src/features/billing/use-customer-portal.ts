import { useCallback, useState } from 'react'
import { toast } from '#web/lib/toast'
import { openCustomerPortal } from './api.requests'

/** "November 30, 2026": how billing dates (trial end, grace end) are shown. */
export const billingDate = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric' })

/**
 * Opens Stripe's customer portal: `open()` asks the server for a portal session and goes there;
 * `opening` is true until the page leaves (or the request fails, with a 'Payment Error' toast).
 */
export function useCustomerPortal() {
  const [opening, setOpening] = useState(false)
  const open = useCallback(async () => {
    setOpening(true)
    try {
      window.location.assign(await openCustomerPortal())
    } catch (error) {
      setOpening(false)
      void toast({ title: 'Payment Error', description: error instanceof Error ? error.message : 'Failed to open the billing portal', variant: 'destructive' })
    }
  }, [])
  return { opening, open }
}
