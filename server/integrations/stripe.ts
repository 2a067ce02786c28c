/**
 * The Stripe SDK client and the mapping of its failures to the API's errors.
 *
 * `new Stripe('')` throws, so a client exists only when the keys are configured. The SDK has no
 * base-URL option and always requests `/v1/...`: `STRIPE_API_URL` (a local fake in tests) becomes
 * host, port and protocol.
 */
import type { Logger } from 'pino'
import Stripe from 'stripe'
import type { Config } from '../config'
import { AppError } from '../lib/app-error'

type StripeSettings = NonNullable<Config['stripe']>

/** Marks the objects this app creates in Stripe (products, prices, the portal configuration). */
export const STRIPE_APP_TAG = 'momentum-coach'

export function createStripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiUrl'>): Stripe {
  const config: Stripe.StripeConfig = {
    timeout: 10_000,
    // Against a fake, fail at once instead of retrying with back-off.
    maxNetworkRetries: settings.apiUrl ? 0 : 2,
    telemetry: false,
    appInfo: { name: STRIPE_APP_TAG },
  }
  if (settings.apiUrl) {
    const url = new URL(settings.apiUrl)
    const protocol = url.protocol === 'http:' ? 'http' : 'https'
    config.host = url.hostname
    config.port = url.port || (protocol === 'http' ? 80 : 443)
    config.protocol = protocol
  }
  return new Stripe(settings.secretKey, config)
}

/**
 * A Stripe failure as the API's error: unreachable → 503, refused → 502; the details go to the log
 * only. An AppError passes through; anything else (a bug) is rethrown as it is.
 */
export function stripeError(error: unknown, log: Logger, what: string): AppError {
  if (error instanceof AppError) return error
  if (error instanceof Stripe.errors.StripeConnectionError) {
    log.warn({ err: error }, `stripe unreachable: ${what}`)
    return new AppError('PAYMENT_PROVIDER_UNREACHABLE')
  }
  if (error instanceof Stripe.errors.StripeError) {
    log.error({ err: error, stripeCode: error.code, requestId: error.requestId }, `stripe refused: ${what}`)
    return new AppError('PAYMENT_PROVIDER_ERROR')
  }
  throw error
}

/** Whether Stripe answered 404 for the object asked for. */
/** Stripe refused the request as invalid (a 4xx other than auth and rate limits). */
export const isStripeInvalidRequest = (error: unknown): boolean => error instanceof Stripe.errors.StripeInvalidRequestError

export const isStripeNotFound = (error: unknown): boolean =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404

/** Verifies a webhook's Stripe-Signature over the raw body; INVALID_SIGNATURE (400) when it does not match. */
export function verifyStripeEvent(stripe: Stripe, body: Buffer, signature: string | undefined, secret: string, log: Logger): Stripe.Event {
  if (!signature) throw new AppError('INVALID_SIGNATURE', 'The Stripe-Signature header is missing.')
  try {
    return stripe.webhooks.constructEvent(body, signature, secret)
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      log.warn({ reason: error.message }, 'stripe webhook with a bad signature')
      throw new AppError('INVALID_SIGNATURE', 'The Stripe-Signature header does not match the payload.')
    }
    throw new AppError('INVALID_SIGNATURE', 'The payload is not a Stripe event.')
  }
}
