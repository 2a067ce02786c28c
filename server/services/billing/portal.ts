import { STRIPE_APP_TAG, stripeError } from '#server/integrations/stripe'
import { AppError } from '#server/lib/app-error'
import { storedCustomer, STRIPE_LOOKUP_CACHE_MS, type StripeContext } from './context'

/** Stripe's billing portal for the user's customer (card, invoices, plan changes, cancelling). */
export function createPortal(ctx: StripeContext) {
  let configuration: { id: string | null; expiresAt: number } | undefined

  /** The portal configuration `npm run stripe:setup` made (else Stripe's default), cached 10 min. */
  async function configurationId(): Promise<string | null> {
    const now = ctx.clock.now().getTime()
    if (configuration && configuration.expiresAt > now) return configuration.id
    const list = await ctx.stripe.billingPortal.configurations.list({ active: true, limit: 100 })
    const ours = list.data.find((candidate) => candidate.metadata?.app === STRIPE_APP_TAG)
    configuration = { id: ours?.id ?? null, expiresAt: now + STRIPE_LOOKUP_CACHE_MS }
    return configuration.id
  }

  async function createPortalSession(userId: string): Promise<{ url: string }> {
    const customer = await storedCustomer(ctx.db, userId)
    if (!customer) throw new AppError('NO_BILLING_ACCOUNT')
    try {
      const id = await configurationId()
      const session = await ctx.stripe.billingPortal.sessions.create({
        customer,
        return_url: `${ctx.appUrl}/dashboard`,
        ...(id ? { configuration: id } : {}),
      })
      return { url: session.url }
    } catch (error) {
      throw stripeError(error, ctx.log, 'create billing portal session')
    }
  }

  return { createPortalSession }
}
