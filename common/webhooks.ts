/**
 * Where Stripe, Vapi and Twilio post to the app (APP_URL + the path), and the headers that
 * authenticate them: one place for the routes, the services and scripts that hand the URLs out,
 * and the fakes that play the senders in tests.
 */

/** Every webhook's path starts with this: no session and no same-origin check (the signature or secret authenticates). */
export const WEBHOOKS_PREFIX = '/api/webhooks/'
export const STRIPE_WEBHOOK_PATH = '/api/webhooks/stripe'
export const VAPI_WEBHOOK_PATH = '/api/webhooks/vapi'
/** Inbound texts from Twilio. */
export const SMS_WEBHOOK_PATH = '/api/webhooks/sms'
/** Where Twilio reports what became of each text we send (its status callback). */
export const SMS_STATUS_PATH = '/api/webhooks/sms/status'

/** Stripe's signature of an event (against STRIPE_WEBHOOK_SECRET). */
export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature'
/** The header Vapi sends VAPI_WEBHOOK_SECRET in (VAPI_WEBHOOK_AUTH=secret); Vapi's credential names it so. */
export const VAPI_SECRET_HEADER = 'X-Vapi-Secret'
/** Vapi's HMAC of `${timestamp}.${body}` and the timestamp it signed (VAPI_WEBHOOK_AUTH=hmac). */
export const VAPI_SIGNATURE_HEADER = 'x-signature'
export const VAPI_TIMESTAMP_HEADER = 'x-timestamp'
/** Twilio's signature of the URL and the form fields (against TWILIO_AUTH_TOKEN). */
export const TWILIO_SIGNATURE_HEADER = 'X-Twilio-Signature'

/** A header's name as Node's `request.headers` and Fastify's header schemas key it: in lower case. */
export function headerKey<Name extends string>(name: Name): Lowercase<Name> {
  return name.toLowerCase() as Lowercase<Name>
}
