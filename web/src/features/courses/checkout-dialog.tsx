/**
 * Stripe's embedded checkout for a premium course (Stripe mode only; loaded on demand). The
 * publishable key comes from the server; Stripe.js is loaded through `@stripe/stripe-js/pure`, so
 * nothing of Stripe's is fetched until a purchase starts.
 */
import { EmbeddedCheckout, EmbeddedCheckoutProvider } from '@stripe/react-stripe-js'
import type { Stripe } from '@stripe/stripe-js'
import { loadStripe } from '@stripe/stripe-js/pure'
import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { formatCoursePrice } from '#common/courses'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '#web/components/ui/dialog'
import { Spinner } from '#web/components/ui/spinner'
import { billingKeys } from '#web/features/billing/api'
import { fetchPublishableKey } from '#web/features/billing/api.requests'

const stripePromises = new Map<string, Promise<Stripe | null>>()

/** One Stripe.js instance per publishable key; a failed load may be retried by opening again. */
function stripeFor(key: string): Promise<Stripe | null> {
  let promise = stripePromises.get(key)
  if (!promise) {
    promise = loadStripe(key).catch((error: unknown) => {
      stripePromises.delete(key)
      throw error
    })
    stripePromises.set(key, promise)
  }
  return promise
}

export type CourseCheckoutDialogProps = {
  courseTitle: string
  priceCents: number | null
  clientSecret: string
  onClose: () => void
  onComplete: () => void
}

export default function CourseCheckoutDialog({ courseTitle, priceCents, clientSecret, onClose, onComplete }: CourseCheckoutDialogProps) {
  const stripe = useQuery({
    queryKey: billingKeys.stripe,
    // The inline errors of spec 1 §8, each shown with 'Please try refreshing the page'.
    queryFn: async () => {
      const key = await fetchPublishableKey().catch(() => {
        throw new Error('Payment system configuration error')
      })
      const instance = await stripeFor(key).catch(() => {
        throw new Error('Failed to load payment system')
      })
      if (!instance) throw new Error('Payment system initialization failed')
      return instance
    },
    staleTime: Infinity,
    retry: false,
  })
  // Stable for the provider's lifetime (it ignores changed options).
  const options = useMemo(() => ({ fetchClientSecret: () => Promise.resolve(clientSecret), onComplete }), [clientSecret, onComplete])

  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Complete Your Purchase</DialogTitle>
          <DialogDescription>
            {priceCents ? `${formatCoursePrice(priceCents)} one-time for ` : 'Unlock '}
            {courseTitle}. Your enrollment starts as soon as the payment is confirmed.
          </DialogDescription>
        </DialogHeader>
        {stripe.isPending ? (
          <div className="flex min-h-40 items-center justify-center">
            <Spinner label="Setting up payment..." showLabel />
          </div>
        ) : stripe.isError ? (
          <div role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 p-4 text-sm">
            <p className="font-medium text-destructive">{stripe.error.message}</p>
            <p className="mt-1 text-muted-foreground">Please try refreshing the page</p>
          </div>
        ) : (
          <EmbeddedCheckoutProvider stripe={stripe.data} options={options}>
            <EmbeddedCheckout />
          </EmbeddedCheckoutProvider>
        )}
      </DialogContent>
    </Dialog>
  )
}
