/**
 * The 'Complete Your Subscription' dialog (spec 1 §2, §4, §8) hosting Stripe's embedded checkout.
 * Loaded only in Stripe mode (lazily), and Stripe.js is fetched from js.stripe.com only when the
 * dialog opens (`@stripe/stripe-js/pure`), so testing mode never contacts Stripe.
 *
 * On open: get the session, fetch the publishable key and create the checkout session
 * ('Setting up payment...'); load Stripe.js; mount the embedded form 200 ms later. Failures:
 * - 'Payment Error' toast (destructive) closing the dialog: Authentication error: {message};
 *   Please log in to subscribe; Failed to create checkout session; Invalid response from payment
 *   service; Failed to initialize payment;
 * - inline, with 'Please try refreshing the page': Failed to load payment system; Failed to
 *   initialize the card provider; Payment system configuration error; Payment system
 *   initialization failed; Failed to load payment form.
 * Closing unmounts everything (a new attempt starts fresh).
 */
import { EmbeddedCheckout, EmbeddedCheckoutProvider } from '@stripe/react-stripe-js'
import type { Stripe, StripeEmbeddedCheckout, StripeEmbeddedCheckoutOptions } from '@stripe/stripe-js'
import { loadStripe } from '@stripe/stripe-js/pure'
import { useQueryClient } from '@tanstack/react-query'
import { AlertTriangleIcon } from 'lucide-react'
import { Component, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import type { Plan } from '#common/plans'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '#web/components/ui/dialog'
import { Spinner } from '#web/components/ui/spinner'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { meQueryOptions } from '#web/features/auth/api'
import { createEmbeddedCheckout, fetchCheckoutStatus, fetchPublishableKey } from './api.requests'

/** Spec 1 §9: the checkout form mounts 200 ms after it is ready. */
const CHECKOUT_MOUNT_DELAY_MS = 200

const INLINE_ERRORS = {
  load: 'Failed to load payment system',
  provider: 'Failed to initialize the card provider',
  configuration: 'Payment system configuration error',
  initialization: 'Payment system initialization failed',
  form: 'Failed to load payment form',
} as const
const REFRESH_HINT = 'Please try refreshing the page'

type InlineError = (typeof INLINE_ERRORS)[keyof typeof INLINE_ERRORS]

/** Thrown to close the dialog with a 'Payment Error' toast carrying this message. */
class PaymentError extends Error {}

// One Stripe.js load per publishable key; a failed load is forgotten so that a retry tries again.
const stripeLoads = new Map<string, Promise<Stripe | null>>()
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let load = stripeLoads.get(publishableKey)
  if (!load) {
    load = loadStripe(publishableKey)
    stripeLoads.set(publishableKey, load)
    load.catch(() => stripeLoads.delete(publishableKey))
  }
  return load
}

const delay = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms))
const attemptId = () => (crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`).replace(/[^A-Za-z0-9_-]/g, '')

type CheckoutDialogProps = {
  /** The plan being bought; null when the dialog is closed. */
  plan: Plan | null
  onClose: () => void
  /** The subscription is active (the embedded form completed and the server confirmed it). */
  onSubscribed: (plan: Plan) => void
}

export function CheckoutDialog({ plan, onClose, onSubscribed }: CheckoutDialogProps) {
  // A new key per opening: closing unmounts the checkout and its Stripe instance.
  const [opening, setOpening] = useState(0)
  const [lastPlan, setLastPlan] = useState<string | null>(null)
  if ((plan?.id ?? null) !== lastPlan) {
    setLastPlan(plan?.id ?? null)
    if (plan) setOpening((n) => n + 1)
  }
  return (
    <Dialog open={plan !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="sm:max-w-xl" onInteractOutside={(event) => event.preventDefault()}>
        <DialogHeader>
          <DialogTitle>Complete Your Subscription</DialogTitle>
          <DialogDescription>Complete your payment to activate your subscription</DialogDescription>
        </DialogHeader>
        {plan ? <CheckoutBody key={opening} plan={plan} onClose={onClose} onSubscribed={onSubscribed} /> : null}
      </DialogContent>
    </Dialog>
  )
}

type Ready = { stripe: Stripe; clientSecret: string; sessionId: string }

function CheckoutBody({ plan, onClose, onSubscribed }: { plan: Plan; onClose: () => void; onSubscribed: (plan: Plan) => void }) {
  const queryClient = useQueryClient()
  const [ready, setReady] = useState<Ready | null>(null)
  const [inlineError, setInlineError] = useState<InlineError | null>(null)
  const [mounted, setMounted] = useState(false)
  const unmounted = useRef(false)
  const [attempt] = useState(attemptId)

  const fail = useCallback(
    (message: string) => {
      if (unmounted.current) return
      void toast({ title: 'Payment Error', description: message, variant: 'destructive' })
      onClose()
    },
    [onClose],
  )

  useEffect(() => {
    unmounted.current = false
    let cancelled = false
    const setup = async () => {
      // Get the session: subscribing needs a signed-in session.
      let signedIn: boolean
      try {
        signedIn = Boolean(await queryClient.fetchQuery({ ...meQueryOptions(), staleTime: 0 }))
      } catch (error) {
        throw new PaymentError(`Authentication error: ${error instanceof Error ? error.message : String(error)}`)
      }
      if (!signedIn) throw new PaymentError('Please log in to subscribe')

      const keyLoad = fetchPublishableKey().then(
        (key) => ({ ok: true as const, key }),
        () => ({ ok: false as const }),
      )
      let session: { client_secret: string; session_id: string }
      try {
        session = await createEmbeddedCheckout(plan.id, attempt)
      } catch (error) {
        if (isApiError(error) && error.status === 401) throw new PaymentError('Please log in to subscribe')
        if (isApiError(error) && error.is('INVALID_RESPONSE')) throw new PaymentError('Invalid response from payment service')
        if (isApiError(error) && error.status === 409) throw new PaymentError(error.message)
        throw new PaymentError('Failed to create checkout session')
      }
      if (!session.client_secret) throw new PaymentError('Invalid response from payment service')
      if (cancelled) return

      const key = await keyLoad
      if (!key.ok || !key.key) return setInlineError(INLINE_ERRORS.configuration)
      let stripe: Stripe | null
      try {
        stripe = await stripeFor(key.key)
      } catch (error) {
        const message = error instanceof Error ? error.message : ''
        return setInlineError(message === 'Failed to load Stripe.js' || message === 'Stripe.js not available' ? INLINE_ERRORS.load : INLINE_ERRORS.initialization)
      }
      if (!stripe) return setInlineError(INLINE_ERRORS.provider)
      if (cancelled) return
      setReady({ stripe, clientSecret: session.client_secret, sessionId: session.session_id })
      await delay(CHECKOUT_MOUNT_DELAY_MS)
      if (!cancelled) setMounted(true)
    }
    setup().catch((error: unknown) => {
      if (cancelled) return
      fail(error instanceof PaymentError ? error.message : 'Failed to initialize payment')
    })
    return () => {
      cancelled = true
      unmounted.current = true
    }
  }, [attempt, fail, plan.id, queryClient])

  const complete = useCallback(async () => {
    if (!ready) return
    try {
      const status = await fetchCheckoutStatus(ready.sessionId)
      if (status.subscribed) onSubscribed(plan)
      else fail('Your payment is being processed. Your plan will be active in a moment.')
    } catch (error) {
      fail(error instanceof Error ? error.message : 'Failed to initialize payment')
    }
  }, [fail, onSubscribed, plan, ready])

  if (inlineError) {
    return (
      <div role="alert" className="flex items-start gap-3 rounded-lg border border-destructive/40 bg-destructive/5 p-4">
        <AlertTriangleIcon className="mt-0.5 size-5 shrink-0 text-destructive" aria-hidden="true" />
        <div>
          <p className="font-medium text-destructive">{inlineError}</p>
          <p className="mt-1 text-sm text-muted-foreground">{REFRESH_HINT}</p>
        </div>
      </div>
    )
  }
  if (!ready || !mounted) {
    return (
      <div className="flex min-h-40 flex-col items-center justify-center gap-3" aria-busy="true">
        <Spinner size="lg" label="Setting up payment..." showLabel className="flex-col text-base" />
      </div>
    )
  }
  return (
    <EmbeddedForm
      ready={ready}
      unmounted={unmounted}
      onComplete={() => void complete()}
      onInitFailed={() => setInlineError(INLINE_ERRORS.initialization)}
      onFormFailed={() => setInlineError(INLINE_ERRORS.form)}
    />
  )
}

/**
 * Stripe's embedded checkout. The provider gets a Stripe object whose createEmbeddedCheckoutPage
 * reports a failed initialisation (the provider would leave it unhandled), and destroys an
 * instance that arrives after the dialog closed (react-stripe-js#703 leaks it otherwise).
 */
function EmbeddedForm({
  ready,
  unmounted,
  onComplete,
  onInitFailed,
  onFormFailed,
}: {
  ready: Ready
  unmounted: { current: boolean }
  onComplete: () => void
  onInitFailed: () => void
  onFormFailed: () => void
}) {
  const callbacks = useRef({ onComplete, onInitFailed })
  useEffect(() => {
    callbacks.current = { onComplete, onInitFailed }
  })
  const stripe = useMemo(() => {
    const create = (options: StripeEmbeddedCheckoutOptions) =>
      ready.stripe.createEmbeddedCheckoutPage(options).then(
        (checkout: StripeEmbeddedCheckout) => {
          if (unmounted.current) checkout.destroy()
          return checkout
        },
        () => {
          if (!unmounted.current) callbacks.current.onInitFailed()
          return new Promise<StripeEmbeddedCheckout>(() => {})
        },
      )
    return new Proxy(ready.stripe, {
      get(target, property) {
        if (property === 'createEmbeddedCheckoutPage') return create
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    })
  }, [ready.stripe, unmounted])
  const options = useMemo(
    () => ({ fetchClientSecret: () => Promise.resolve(ready.clientSecret), onComplete: () => callbacks.current.onComplete() }),
    [ready.clientSecret],
  )
  return (
    <FormBoundary onError={onFormFailed}>
      <EmbeddedCheckoutProvider stripe={stripe} options={options}>
        <EmbeddedCheckout id="embedded-checkout" className="min-h-96" />
      </EmbeddedCheckoutProvider>
    </FormBoundary>
  )
}

class FormBoundary extends Component<{ onError: () => void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false }
  static getDerivedStateFromError() {
    return { failed: true }
  }
  override componentDidCatch() {
    this.props.onError()
  }
  override render() {
    return this.state.failed ? null : this.props.children
  }
}
