/**
 * A small, stateful, Stripe-compatible API for tests. The official
 * `stripe` SDK talks to it through STRIPE_API_URL exactly as it talks to Stripe: form-encoded
 * bodies in qs bracket style, Bearer auth, `Idempotency-Key` replay, Stripe's JSON shapes and its
 * error shape `{error:{type,message,code?,param?}}`. It serves the endpoints this app uses
 * (customers, products, prices, checkout sessions, subscriptions, invoices, charges, billing
 * portal) and validates the parameters the 2026 API changed (`ui_mode: 'embedded_page'`, no
 * `payment_method_types`, `customer` xor `customer_email`, period end on subscription items).
 *
 * Test controls (plain methods, not HTTP): complete a checkout, change a subscription's status,
 * renew, fail a payment, cancel, refund. Each returns the events Stripe would send; tests sign them
 * with the SDK's `generateTestHeaderString` (`signedEvent`) and deliver them in any order, or let
 * `deliver` POST them to the app's webhook URL.
 */
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import Stripe from 'stripe'
import { headerKey, STRIPE_SIGNATURE_HEADER } from '#common/webhooks'

export const FAKE_SECRET_KEY = 'sk_test_fake_momentum'
export const FAKE_PUBLISHABLE_KEY = 'pk_test_fake_momentum'
export const FAKE_WEBHOOK_SECRET = 'whsec_fake_momentum'
export const FAKE_API_VERSION = '2026-10-28.endive'

type Json = Record<string, unknown>
type Params = Record<string, unknown>

const DAY = 24 * 60 * 60
const MONTH = 30 * DAY

// ---- form decoding (qs bracket style) --------------------------------------------------------

/** Decodes `a[b][0][c]=v&…` into nested objects and arrays; every value is a string. */
export function parseForm(input: string): Params {
  const root: Params = {}
  for (const pair of input.split('&')) {
    if (!pair) continue
    const eq = pair.indexOf('=')
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '))
    const key = decode(eq === -1 ? pair : pair.slice(0, eq))
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1))
    const path = (key.match(/^[^[\]]+|\[[^\]]*\]/g) ?? [key]).map((part) => part.replace(/^\[|\]$/g, ''))
    let node: Params = root
    path.forEach((part, index) => {
      const last = index === path.length - 1
      const segment = part === '' ? String(Object.keys(node).length) : part
      if (last) node[segment] = value
      else {
        if (typeof node[segment] !== 'object' || node[segment] === null) node[segment] = {}
        node = node[segment] as Params
      }
    })
  }
  return arrayify(root) as Params
}

/** Objects whose keys are 0..n-1 become arrays, recursively. */
function arrayify(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value as Params).map(([k, v]) => [k, arrayify(v)] as const)
  const keys = entries.map(([k]) => k)
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return entries.map(([, v]) => v)
  return Object.fromEntries(entries)
}

// ---- errors ----------------------------------------------------------------------------------

class FakeStripeError extends Error {
  readonly status: number
  readonly type: 'invalid_request_error' | 'idempotency_error' | 'api_error' | 'card_error'
  readonly code: string | undefined
  readonly param: string | undefined
  constructor(status: number, type: FakeStripeError['type'], message: string, code?: string, param?: string) {
    super(message)
    this.status = status
    this.type = type
    this.code = code
    this.param = param
  }
}

const invalid = (message: string, param?: string, code?: string) => new FakeStripeError(400, 'invalid_request_error', message, code, param)
const missing = (kind: string, id: string, param = 'id') =>
  new FakeStripeError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param)

function onlyKnown(params: Params, allowed: string[]) {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) throw invalid(`Received unknown parameter: ${key}`, key, 'parameter_unknown')
  }
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)
const int = (value: unknown, param: string) => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n)) throw invalid(`Invalid integer: ${String(value)}`, param)
  return n
}
const bool = (value: unknown) => (value === 'true' ? true : value === 'false' ? false : undefined)
const metadataOf = (value: unknown): Record<string, string> => {
  if (value === undefined || value === '') return {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('Invalid object', 'metadata')
  return Object.fromEntries(Object.entries(value as Params).map(([k, v]) => [k, String(v)]))
}
const expandOf = (params: Params): string[] => (Array.isArray(params.expand) ? (params.expand as string[]) : [])

// ---- the fake --------------------------------------------------------------------------------

export type FakeStripeOptions = {
  secretKey?: string
  /** Where `deliver` posts events (the app's /api/webhooks/stripe). */
  webhookUrl?: string
  webhookSecret?: string
  /** Unix seconds; defaults to the real time. */
  now?: () => number
}

export type RecordedRequest = { method: string; path: string; params: Params; idempotencyKey: string | undefined; replayed: boolean }

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>

export async function startFakeStripe(options: FakeStripeOptions = {}) {
  const secretKey = options.secretKey ?? FAKE_SECRET_KEY
  const webhookSecret = options.webhookSecret ?? FAKE_WEBHOOK_SECRET
  let webhookUrl = options.webhookUrl
  const now = options.now ?? (() => Math.floor(Date.now() / 1000))
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`

  const customers = new Map<string, Json>()
  const products = new Map<string, Json>()
  const prices = new Map<string, Json>()
  const sessions = new Map<string, Json & { _subscriptionData?: Json; _paymentIntentData?: Json; _lineItems: Json[] }>()
  const subscriptions = new Map<string, Json>()
  const invoices = new Map<string, Json>()
  const charges = new Map<string, Json>()
  const paymentIntents = new Map<string, Json>()
  const paymentMethods = new Map<string, Json>()
  const portalSessions = new Map<string, Json>()
  const portalConfigurations = new Map<string, Json>()
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>()
  const requests: RecordedRequest[] = []
  const events: Stripe.Event[] = []
  /** Makes the next n API requests fail with a 500 api_error (with stripe-should-retry: false). */
  let failNext = 0
  /** Responses held back until the test releases them (see `hold`). */
  const holds: Array<{ method: string; path: RegExp; used: boolean; arrived: () => void; released: Promise<void> }> = []

  const app = Fastify({ logger: false, routerOptions: { querystringParser: (query) => parseForm(query) } })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseForm(String(body)))
    } catch (error) {
      done(error as Error, undefined)
    }
  })

  const list = (url: string, data: unknown[]) => ({ object: 'list', data, has_more: false, url })

  // -- rendering with expand ---------------------------------------------------------------
  function renderPrice(price: Json, expandProduct: boolean): Json {
    const copy = structuredClone(price)
    if (expandProduct) copy.product = structuredClone(products.get(price.product as string) ?? price.product)
    return copy
  }

  function renderSubscription(sub: Json, expand: string[]): Json {
    const copy = structuredClone(sub)
    const items = copy.items as { data: Json[] }
    items.data = items.data.map((item) => ({
      ...item,
      price: renderPrice(prices.get(item.price as string)!, expand.includes('items.data.price.product')),
    }))
    if (expand.includes('latest_invoice') && copy.latest_invoice) copy.latest_invoice = structuredClone(invoices.get(copy.latest_invoice as string))
    if (expand.includes('customer')) copy.customer = structuredClone(customers.get(copy.customer as string))
    return copy
  }

  function renderSession(session: Json, expand: string[]): Json {
    const copy = structuredClone(session)
    for (const key of Object.keys(copy)) if (key.startsWith('_')) delete copy[key]
    if (expand.includes('subscription') && copy.subscription) copy.subscription = renderSubscription(subscriptions.get(copy.subscription as string)!, [])
    if (expand.includes('line_items')) copy.line_items = list(`/v1/checkout/sessions/${String(session.id)}/line_items`, structuredClone(session._lineItems as Json[]))
    if (expand.includes('payment_intent') && copy.payment_intent) copy.payment_intent = structuredClone(paymentIntents.get(copy.payment_intent as string))
    return copy
  }

  // -- objects -------------------------------------------------------------------------------
  function createCustomer(params: Params): Json {
    const customer = {
      id: id('cus'),
      object: 'customer',
      created: now(),
      email: str(params.email) ?? null,
      name: str(params.name) ?? null,
      metadata: metadataOf(params.metadata),
      invoice_settings: { custom_fields: null, default_payment_method: null as string | null, footer: null, rendering_options: null },
      livemode: false,
    }
    customers.set(customer.id, customer)
    return customer
  }

  /** The card a buyer enters in a subscription's Checkout: attached to the customer (the subscription's default). */
  function attachCard(customerId: string): string {
    const method = {
      id: id('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, country: 'US', funding: 'credit' },
      billing_details: { email: customers.get(customerId)?.email ?? null, name: null },
      created: now(),
      customer: customerId as string | null,
      livemode: false,
      metadata: {},
    }
    paymentMethods.set(method.id, method)
    return method.id
  }

  function ensureProduct(params: Params): string {
    const productId = str(params.id) ?? id('prod')
    if (products.has(productId)) throw invalid(`Product already exists.`, 'id', 'resource_already_exists')
    if (!str(params.name)) throw invalid('Missing required param: name.', 'name', 'parameter_missing')
    products.set(productId, {
      id: productId,
      object: 'product',
      active: true,
      created: now(),
      name: str(params.name),
      description: str(params.description) ?? null,
      metadata: metadataOf(params.metadata),
      livemode: false,
    })
    return productId
  }

  function createPrice(params: Params): Json {
    onlyKnown(params, ['currency', 'unit_amount', 'recurring', 'product', 'product_data', 'lookup_key', 'transfer_lookup_key', 'metadata', 'nickname', 'active', 'tax_behavior', 'expand'])
    const currency = str(params.currency)
    if (!currency) throw invalid('Missing required param: currency.', 'currency', 'parameter_missing')
    const unitAmount = int(params.unit_amount, 'unit_amount')
    if (unitAmount === undefined || unitAmount < 0) throw invalid('Missing required param: unit_amount.', 'unit_amount', 'parameter_missing')
    let productId = str(params.product)
    if (productId && !products.has(productId)) throw missing('product', productId, 'product')
    if (!productId && params.product_data) productId = ensureProduct(params.product_data as Params)
    if (!productId) throw invalid('Missing required param: product.', 'product', 'parameter_missing')
    const lookupKey = str(params.lookup_key) ?? null
    if (lookupKey) {
      const holder = [...prices.values()].find((price) => price.lookup_key === lookupKey)
      if (holder) {
        if (bool(params.transfer_lookup_key) !== true) {
          throw invalid(`A price (\`${String(holder.id)}\`) already uses that lookup key.`, 'lookup_key')
        }
        holder.lookup_key = null
      }
    }
    const recurring = params.recurring as Params | undefined
    const interval = recurring ? str(recurring.interval) : undefined
    if (recurring && !['day', 'week', 'month', 'year'].includes(interval ?? '')) throw invalid('Invalid recurring[interval]', 'recurring[interval]')
    const price = {
      id: id('price'),
      object: 'price',
      active: bool(params.active) ?? true,
      billing_scheme: 'per_unit',
      created: now(),
      currency,
      livemode: false,
      lookup_key: lookupKey,
      metadata: metadataOf(params.metadata),
      nickname: str(params.nickname) ?? null,
      product: productId,
      recurring: recurring ? { interval, interval_count: 1, usage_type: 'licensed', meter: null, trial_period_days: null } : null,
      tax_behavior: str(params.tax_behavior) ?? 'unspecified',
      type: recurring ? 'recurring' : 'one_time',
      unit_amount: unitAmount,
    }
    prices.set(price.id, price)
    return price
  }

  /** An invoice for the subscription's current period; a trial's first invoice is for 0 and takes no charge. */
  function createInvoice(sub: Json, status: 'paid' | 'open', options: { trial?: boolean } = {}): Json {
    const item = (sub.items as { data: Json[] }).data[0]!
    const price = prices.get(item.price as string)!
    const amount = options.trial ? 0 : (price.unit_amount as number)
    const created = now()
    const invoice: Json = {
      id: id('in'),
      object: 'invoice',
      created,
      customer: sub.customer,
      currency: price.currency,
      amount_due: amount,
      amount_paid: status === 'paid' ? amount : 0,
      billing_reason: options.trial || !sub.latest_invoice ? 'subscription_create' : 'subscription_cycle',
      status,
      livemode: false,
      status_transitions: { finalized_at: created, paid_at: status === 'paid' ? created : null, voided_at: null, marked_uncollectible_at: null },
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: structuredClone(sub.metadata) },
      },
      lines: list(`/v1/invoices/lines`, [
        {
          id: id('il'),
          object: 'line_item',
          amount,
          period: { start: item.current_period_start, end: item.current_period_end },
          pricing: { type: 'price_details', price_details: { price: price.id, product: price.product }, unit_amount_decimal: null },
        },
      ]),
    }
    invoices.set(invoice.id as string, invoice)
    sub.latest_invoice = invoice.id
    if (status === 'paid' && amount > 0) createCharge(sub.customer as string, amount, price.currency as string, {})
    return invoice
  }

  function createCharge(customer: string | null, amount: number, currency: string, metadata: Record<string, string>): Json {
    const intent = { id: id('pi'), object: 'payment_intent', amount, currency, customer, metadata, status: 'succeeded', created: now(), livemode: false }
    paymentIntents.set(intent.id, intent)
    const charge = {
      id: id('ch'),
      object: 'charge',
      amount,
      amount_refunded: 0,
      currency,
      customer,
      payment_intent: intent.id,
      metadata: {},
      paid: true,
      refunded: false,
      status: 'succeeded',
      created: now(),
      livemode: false,
    }
    charges.set(charge.id, charge)
    return charge
  }

  /**
   * A subscription as Checkout makes it. With `trialEnd` (unix seconds) it is `trialing` until then:
   * `trial_start`/`trial_end` set, the items' first period ending with the trial, and a paid
   * invoice for 0 (Stripe charges when the trial ends).
   */
  function createSubscriptionFor(customer: string, lineItems: Json[], metadata: Record<string, string>, status: string, trialEnd: number | null = null): Json {
    const start = now()
    const subId = id('sub')
    const sub: Json = {
      id: subId,
      object: 'subscription',
      created: start,
      start_date: start,
      customer,
      status,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      livemode: false,
      metadata,
      trial_start: trialEnd === null ? null : start,
      trial_end: trialEnd,
      trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
      default_payment_method: null,
      latest_invoice: null,
      items: list(
        `/v1/subscription_items?subscription=${subId}`,
        lineItems.map((line) => ({
          id: id('si'),
          object: 'subscription_item',
          created: start,
          metadata: {},
          price: line.price,
          quantity: line.quantity,
          subscription: subId,
          current_period_start: start,
          current_period_end: trialEnd ?? start + MONTH,
        })),
      ),
    }
    subscriptions.set(subId, sub)
    createInvoice(sub, status === 'active' || status === 'trialing' ? 'paid' : 'open', { trial: trialEnd !== null })
    return sub
  }

  function createCheckoutSession(params: Params): Json {
    onlyKnown(params, [
      'ui_mode', 'mode', 'customer', 'customer_email', 'line_items', 'return_url', 'success_url', 'cancel_url',
      'redirect_on_completion', 'client_reference_id', 'metadata', 'subscription_data', 'payment_intent_data',
      'expires_at', 'allowed_payment_method_types', 'excluded_payment_method_types', 'expand', 'customer_creation',
      'invoice_creation', 'allow_promotion_codes', 'billing_address_collection', 'locale',
    ])
    const uiMode = str(params.ui_mode) ?? 'hosted_page'
    if (!['elements', 'embedded_page', 'form', 'hosted_page'].includes(uiMode)) {
      throw invalid(`Invalid ui_mode: must be one of elements, embedded_page, form, or hosted_page`, 'ui_mode')
    }
    const mode = str(params.mode)
    if (!mode) throw invalid('Missing required param: mode.', 'mode', 'parameter_missing')
    if (!['payment', 'subscription', 'setup'].includes(mode)) throw invalid('Invalid mode', 'mode')
    const customer = str(params.customer) ?? null
    const customerEmail = str(params.customer_email) ?? null
    if (customer && customerEmail) throw invalid('You may only specify one of these parameters: customer, customer_email.', 'customer')
    if (customer && !customers.has(customer)) throw missing('customer', customer, 'customer')
    if (params.customer_creation !== undefined && mode === 'subscription') {
      throw invalid('`customer_creation` can only be used in `payment` and `setup` mode.', 'customer_creation')
    }
    if (params.payment_intent_data !== undefined && mode !== 'payment') {
      throw invalid('You can not pass `payment_intent_data` in `subscription` mode.', 'payment_intent_data')
    }
    if (params.subscription_data !== undefined && mode !== 'subscription') {
      throw invalid('You can not pass `subscription_data` in `payment` mode.', 'subscription_data')
    }
    const redirect = str(params.redirect_on_completion) ?? 'always'
    if (!['always', 'if_required', 'never'].includes(redirect)) throw invalid('Invalid redirect_on_completion', 'redirect_on_completion')
    if (uiMode === 'embedded_page') {
      for (const key of ['success_url', 'cancel_url']) {
        if (params[key] !== undefined) throw invalid(`You cannot pass \`${key}\` when \`ui_mode\` is \`embedded_page\`.`, key)
      }
      const returnUrl = str(params.return_url)
      if (!returnUrl && redirect !== 'never') throw invalid('`return_url` is required when `ui_mode` is `embedded_page`.', 'return_url')
      if (returnUrl && !returnUrl.includes('{CHECKOUT_SESSION_ID}')) {
        throw invalid('The return_url must include the {CHECKOUT_SESSION_ID} template so the return page can find the session.', 'return_url')
      }
    } else if (params.return_url !== undefined) {
      throw invalid('`return_url` can only be used when `ui_mode` is `embedded_page` or `elements`.', 'return_url')
    }
    const rawItems = params.line_items
    if (!Array.isArray(rawItems) || rawItems.length === 0) throw invalid('Missing required param: line_items.', 'line_items', 'parameter_missing')
    const lineItems = rawItems.map((raw, index) => {
      const item = raw as Params
      const priceId = str(item.price)
      if (!priceId) throw invalid(`Missing required param: line_items[${index}][price].`, `line_items[${index}][price]`, 'parameter_missing')
      const price = prices.get(priceId)
      if (!price) throw missing('price', priceId, `line_items[${index}][price]`)
      if (!price.active) throw invalid(`The price specified is inactive.`, `line_items[${index}][price]`)
      if (mode === 'payment' && price.type === 'recurring') {
        throw invalid('You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.', `line_items[${index}][price]`)
      }
      const quantity = int(item.quantity, `line_items[${index}][quantity]`) ?? 1
      return { id: id('li'), object: 'item', price: priceId, quantity, amount_total: (price.unit_amount as number) * quantity, currency: price.currency }
    })
    if (mode === 'subscription' && !lineItems.some((item) => prices.get(item.price)!.type === 'recurring')) {
      throw invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items')
    }
    const sessionId = `cs_test_${randomBytes(16).toString('hex')}`
    const created = now()
    const subscriptionData = params.subscription_data as Params | undefined
    if (subscriptionData) {
      onlyKnown(subscriptionData, ['metadata', 'trial_period_days', 'trial_end', 'trial_settings', 'description', 'billing_cycle_anchor', 'proration_behavior', 'default_tax_rates', 'invoice_settings'])
    }
    const trialDays = int(subscriptionData?.trial_period_days, 'subscription_data[trial_period_days]')
    if (trialDays !== undefined && (trialDays < 1 || trialDays > 730)) {
      throw invalid('subscription_data[trial_period_days] must be between 1 and 730.', 'subscription_data[trial_period_days]')
    }
    const trialEndParam = int(subscriptionData?.trial_end, 'subscription_data[trial_end]')
    if (trialDays !== undefined && trialEndParam !== undefined) {
      throw invalid('You may only specify one of these parameters: trial_end, trial_period_days.', 'subscription_data[trial_end]')
    }
    if (trialEndParam !== undefined && trialEndParam < created + 2 * DAY) {
      throw invalid('subscription_data[trial_end] must be at least 48 hours in the future.', 'subscription_data[trial_end]')
    }
    const paymentIntentData = params.payment_intent_data as Params | undefined
    const session = {
      id: sessionId,
      object: 'checkout.session',
      client_secret: uiMode === 'embedded_page' || uiMode === 'elements' ? `${sessionId}_secret_${randomBytes(12).toString('hex')}` : null,
      client_reference_id: str(params.client_reference_id) ?? null,
      created,
      currency: lineItems[0]!.currency,
      customer,
      customer_email: customerEmail,
      customer_details: null,
      expires_at: int(params.expires_at, 'expires_at') ?? created + DAY,
      livemode: false,
      metadata: metadataOf(params.metadata),
      mode,
      payment_intent: null,
      payment_status: 'unpaid',
      redirect_on_completion: redirect,
      return_url: str(params.return_url) ?? null,
      status: 'open',
      subscription: null,
      ui_mode: uiMode,
      url: uiMode === 'hosted_page' ? `https://checkout.stripe.com/c/pay/${sessionId}` : null,
      _subscriptionData: { metadata: metadataOf(subscriptionData?.metadata), trialDays: trialDays ?? null, trialEnd: trialEndParam ?? null },
      _paymentIntentData: { metadata: metadataOf(paymentIntentData?.metadata) },
      _lineItems: lineItems,
    }
    sessions.set(sessionId, session)
    return session
  }

  function portalConfiguration(params: Params): Json {
    const configuration = {
      id: id('bpc'),
      object: 'billing_portal.configuration',
      active: true,
      is_default: false,
      created: now(),
      livemode: false,
      metadata: metadataOf(params.metadata),
      name: str(params.name) ?? null,
      default_return_url: str(params.default_return_url) ?? null,
      business_profile: params.business_profile ?? {},
      features: params.features ?? {},
    }
    portalConfigurations.set(configuration.id, configuration)
    return configuration
  }

  // -- HTTP ------------------------------------------------------------------------------------
  type Handler = (params: Params, match: Record<string, string>, request: FastifyRequest) => unknown
  const routes: Array<{ method: string; pattern: RegExp; names: string[]; handler: Handler }> = []
  const route = (method: string, path: string, handler: Handler) => {
    const names: string[] = []
    const pattern = new RegExp(`^${path.replace(/:(\w+)/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`)
    routes.push({ method, pattern, names, handler })
  }

  route('POST', '/v1/customers', (params) => {
    onlyKnown(params, ['email', 'name', 'metadata', 'phone', 'description', 'expand'])
    return createCustomer(params)
  })
  route('GET', '/v1/customers/:id', (_params, { id: customerId }) => {
    const customer = customers.get(customerId!)
    if (!customer) throw missing('customer', customerId!)
    return customer
  })
  route('POST', '/v1/customers/:id', (params, { id: customerId }) => {
    const customer = customers.get(customerId!)
    if (!customer) throw missing('customer', customerId!)
    if (params.email !== undefined) customer.email = str(params.email) ?? null
    if (params.name !== undefined) customer.name = str(params.name) ?? null
    if (params.metadata !== undefined) customer.metadata = { ...(customer.metadata as object), ...metadataOf(params.metadata) }
    return customer
  })

  route('GET', '/v1/customers/:id/payment_methods', (params, { id: customerId }) => {
    if (!customers.has(customerId!)) throw missing('customer', customerId!)
    const type = str(params.type)
    const data = [...paymentMethods.values()].filter((method) => method.customer === customerId && (!type || method.type === type))
    return list(`/v1/customers/${customerId}/payment_methods`, data)
  })
  route('GET', '/v1/payment_methods/:id', (_params, { id: methodId }) => {
    const method = paymentMethods.get(methodId!)
    if (!method) throw missing('payment_method', methodId!)
    return method
  })
  route('POST', '/v1/payment_methods/:id/detach', (_params, { id: methodId }) => {
    const method = paymentMethods.get(methodId!)
    if (!method) throw missing('payment_method', methodId!)
    if (!method.customer) throw invalid('The payment method you provided is not attached to a customer so detachment is impossible.', 'payment_method')
    const settings = customers.get(method.customer as string)?.invoice_settings as { default_payment_method: string | null } | undefined
    if (settings && settings.default_payment_method === methodId) settings.default_payment_method = null
    for (const sub of subscriptions.values()) if (sub.default_payment_method === methodId) sub.default_payment_method = null
    method.customer = null
    return method
  })

  route('POST', '/v1/products', (params) => {
    onlyKnown(params, ['id', 'name', 'description', 'metadata', 'active', 'expand'])
    return products.get(ensureProduct(params))
  })
  route('GET', '/v1/products/:id', (_params, { id: productId }) => {
    const product = products.get(productId!)
    if (!product) throw missing('product', productId!)
    return product
  })
  route('POST', '/v1/products/:id', (params, { id: productId }) => {
    const product = products.get(productId!)
    if (!product) throw missing('product', productId!)
    if (params.name !== undefined) product.name = str(params.name)
    if (params.metadata !== undefined) product.metadata = { ...(product.metadata as object), ...metadataOf(params.metadata) }
    if (params.active !== undefined) product.active = bool(params.active)
    return product
  })

  route('GET', '/v1/prices', (params) => {
    const lookupKeys = params.lookup_keys === undefined ? undefined : (params.lookup_keys as string[])
    if (lookupKeys && (!Array.isArray(lookupKeys) || lookupKeys.length > 10)) throw invalid('You may pass up to 10 lookup_keys.', 'lookup_keys')
    const active = bool(params.active)
    const limit = int(params.limit, 'limit') ?? 10
    if (limit < 1 || limit > 100) throw invalid('Limit must be between 1 and 100.', 'limit')
    const data = [...prices.values()]
      .filter((price) => (lookupKeys ? lookupKeys.includes(price.lookup_key as string) : true))
      .filter((price) => (active === undefined ? true : price.active === active))
      .filter((price) => (params.product ? price.product === params.product : true))
      .filter((price) => (params.type ? price.type === params.type : true))
      .slice(0, limit)
      .map((price) => renderPrice(price, expandOf(params).includes('data.product')))
    return list('/v1/prices', data)
  })
  route('POST', '/v1/prices', (params) => createPrice(params))
  route('GET', '/v1/prices/:id', (params, { id: priceId }) => {
    const price = prices.get(priceId!)
    if (!price) throw missing('price', priceId!)
    return renderPrice(price, expandOf(params).includes('product'))
  })
  route('POST', '/v1/prices/:id', (params, { id: priceId }) => {
    const price = prices.get(priceId!)
    if (!price) throw missing('price', priceId!)
    onlyKnown(params, ['active', 'lookup_key', 'transfer_lookup_key', 'metadata', 'nickname', 'expand'])
    if (params.active !== undefined) price.active = bool(params.active)
    if (params.metadata !== undefined) price.metadata = { ...(price.metadata as object), ...metadataOf(params.metadata) }
    if (params.lookup_key !== undefined) {
      const key = str(params.lookup_key) || null
      const holder = key ? [...prices.values()].find((other) => other.lookup_key === key && other !== price) : undefined
      if (holder && bool(params.transfer_lookup_key) !== true) throw invalid(`A price (\`${String(holder.id)}\`) already uses that lookup key.`, 'lookup_key')
      if (holder) holder.lookup_key = null
      price.lookup_key = key
    }
    return price
  })

  route('POST', '/v1/checkout/sessions', (params) => renderSession(createCheckoutSession(params), expandOf(params)))
  // Newest first, as Stripe lists; `customer` and `status` filter (one page: the fake never holds 100).
  route('GET', '/v1/checkout/sessions', (params) => {
    const status = str(params.status)
    if (status !== undefined && !['open', 'complete', 'expired'].includes(status)) throw invalid(`Invalid status: must be one of open, complete, or expired`, 'status')
    const data = [...sessions.values()]
      .reverse()
      .filter((session) => (params.customer ? session.customer === params.customer : true))
      .filter((session) => (status ? session.status === status : true))
      .map((session) => renderSession(session, []))
    return list('/v1/checkout/sessions', data)
  })
  route('POST', '/v1/checkout/sessions/:id/expire', (params, { id: sessionId }) => {
    const session = sessions.get(sessionId!)
    if (!session) throw missing('checkout.session', sessionId!)
    if (session.status !== 'open') throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired.`)
    session.status = 'expired'
    return renderSession(session, expandOf(params))
  })
  route('GET', '/v1/checkout/sessions/:id', (params, { id: sessionId }) => {
    const session = sessions.get(sessionId!)
    if (!session) throw missing('checkout.session', sessionId!)
    return renderSession(session, expandOf(params))
  })
  route('GET', '/v1/checkout/sessions/:id/line_items', (_params, { id: sessionId }) => {
    const session = sessions.get(sessionId!)
    if (!session) throw missing('checkout.session', sessionId!)
    return list(`/v1/checkout/sessions/${sessionId}/line_items`, structuredClone(session._lineItems))
  })

  route('GET', '/v1/subscriptions', (params) => {
    const status = str(params.status)
    const data = [...subscriptions.values()]
      .filter((sub) => (params.customer ? sub.customer === params.customer : true))
      .filter((sub) => (status === 'all' ? true : status ? sub.status === status : sub.status !== 'canceled'))
      .map((sub) => renderSubscription(sub, expandOf(params).map((e) => e.replace(/^data\./, ''))))
    return list('/v1/subscriptions', data)
  })
  route('GET', '/v1/subscriptions/:id', (params, { id: subId }) => {
    const sub = subscriptions.get(subId!)
    if (!sub) throw missing('subscription', subId!)
    return renderSubscription(sub, expandOf(params))
  })
  route('POST', '/v1/subscriptions/:id', (params, { id: subId }) => {
    const sub = subscriptions.get(subId!)
    if (!sub) throw missing('subscription', subId!)
    onlyKnown(params, ['cancel_at_period_end', 'metadata', 'expand'])
    if (params.cancel_at_period_end !== undefined) {
      // As Stripe does: cancelling at the period's end sets `cancel_at` to it; resuming clears both.
      sub.cancel_at_period_end = bool(params.cancel_at_period_end)
      const ends = ((sub.items as { data: Json[] }).data ?? []).map((item) => item.current_period_end as number)
      sub.cancel_at = sub.cancel_at_period_end ? Math.max(...ends) : null
    }
    if (params.metadata !== undefined) sub.metadata = { ...(sub.metadata as object), ...metadataOf(params.metadata) }
    return renderSubscription(sub, expandOf(params))
  })
  route('DELETE', '/v1/subscriptions/:id', (params, { id: subId }) => {
    const sub = subscriptions.get(subId!)
    if (!sub) throw missing('subscription', subId!)
    if (sub.status === 'canceled') throw invalid(`A canceled subscription can only update its cancellation_details and metadata.`, undefined, 'resource_missing')
    markCanceled(sub)
    return renderSubscription(sub, expandOf(params))
  })

  route('GET', '/v1/invoices/:id', (_params, { id: invoiceId }) => {
    const invoice = invoices.get(invoiceId!)
    if (!invoice) throw missing('invoice', invoiceId!)
    return invoice
  })
  route('GET', '/v1/charges/:id', (params, { id: chargeId }) => {
    const charge = charges.get(chargeId!)
    if (!charge) throw missing('charge', chargeId!)
    const copy = structuredClone(charge)
    if (expandOf(params).includes('payment_intent')) copy.payment_intent = structuredClone(paymentIntents.get(charge.payment_intent as string))
    return copy
  })

  route('POST', '/v1/billing_portal/sessions', (params) => {
    onlyKnown(params, ['customer', 'return_url', 'configuration', 'flow_data', 'locale', 'expand'])
    const customer = str(params.customer)
    if (!customer) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing')
    if (!customers.has(customer)) throw missing('customer', customer, 'customer')
    const configuration = str(params.configuration)
    if (configuration && !portalConfigurations.has(configuration)) throw missing('billing_portal.configuration', configuration, 'configuration')
    const sessionId = id('bps')
    const session = {
      id: sessionId,
      object: 'billing_portal.session',
      created: now(),
      customer,
      configuration: configuration ?? 'bpc_default',
      livemode: false,
      locale: null,
      return_url: str(params.return_url) ?? null,
      url: `${baseUrl}/portal/${sessionId}`,
    }
    portalSessions.set(sessionId, session)
    return session
  })
  route('GET', '/v1/billing_portal/configurations', (params) => {
    const active = bool(params.active)
    return list(
      '/v1/billing_portal/configurations',
      [...portalConfigurations.values()].filter((c) => (active === undefined ? true : c.active === active)),
    )
  })
  route('POST', '/v1/billing_portal/configurations/:id', (params, { id: configurationId }) => {
    const configuration = portalConfigurations.get(configurationId!)
    if (!configuration) throw missing('billing_portal.configuration', configurationId!)
    onlyKnown(params, ['features', 'business_profile', 'default_return_url', 'metadata', 'name', 'active', 'expand'])
    if (params.features !== undefined) configuration.features = params.features
    if (params.metadata !== undefined) configuration.metadata = { ...(configuration.metadata as object), ...metadataOf(params.metadata) }
    if (params.active !== undefined) configuration.active = bool(params.active)
    return configuration
  })
  route('POST', '/v1/billing_portal/configurations', (params) => {
    onlyKnown(params, ['features', 'business_profile', 'default_return_url', 'metadata', 'name', 'login_page', 'expand'])
    if (!params.features) throw invalid('Missing required param: features.', 'features', 'parameter_missing')
    return portalConfiguration(params)
  })

  const sendError = (reply: FastifyReply, error: FakeStripeError) =>
    reply
      .code(error.status)
      .header('stripe-should-retry', 'false')
      .send({ error: { type: error.type, message: error.message, ...(error.code ? { code: error.code } : {}), ...(error.param ? { param: error.param } : {}) } })

  app.get('/portal/:id', async (request, reply) => {
    const session = portalSessions.get((request.params as { id: string }).id)
    if (!session) return reply.code(404).type('text/html').send('<!doctype html><title>Not found</title><h1>Not found</h1>')
    return reply.type('text/html').send(`<!doctype html><html lang="en"><title>Billing portal (fake)</title><h1>Billing portal</h1><p>Customer ${String(session.customer)}</p></html>`)
  })

  app.all('/v1/*', async (request, reply) => {
    reply.header('request-id', id('req'))
    reply.header('stripe-version', FAKE_API_VERSION)
    const auth = request.headers.authorization
    if (!auth) {
      return sendError(reply, new FakeStripeError(401, 'invalid_request_error', 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.'))
    }
    if (auth !== `Bearer ${secretKey}`) {
      const given = auth.replace(/^Bearer /, '')
      return sendError(reply, new FakeStripeError(401, 'invalid_request_error', `Invalid API Key provided: ${given.slice(0, 8)}${'*'.repeat(Math.max(0, given.length - 12))}${given.slice(-4)}`))
    }
    const path = request.url.split('?')[0]!
    const params = ((request.method === 'GET' || request.method === 'DELETE' ? request.query : request.body) ?? {}) as Params
    const key = request.headers['idempotency-key']
    const idempotencyKey = typeof key === 'string' ? key : undefined
    const fingerprint = `${request.method} ${path} ${JSON.stringify(params)}`
    if (request.method === 'POST' && idempotencyKey) {
      const previous = idempotency.get(idempotencyKey)
      if (previous) {
        requests.push({ method: request.method, path, params, idempotencyKey, replayed: true })
        if (previous.fingerprint !== fingerprint) {
          return sendError(
            reply,
            new FakeStripeError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`),
          )
        }
        return reply.code(previous.status).header('idempotent-replayed', 'true').send(previous.body)
      }
    }
    requests.push({ method: request.method, path, params, idempotencyKey, replayed: false })
    if (failNext > 0) {
      failNext -= 1
      return sendError(reply, new FakeStripeError(500, 'api_error', 'An unknown error occurred (injected by the test).'))
    }
    const match = routes
      .filter((candidate) => candidate.method === request.method)
      .map((candidate) => ({ candidate, result: candidate.pattern.exec(path) }))
      .find((entry) => entry.result)
    if (!match) {
      return sendError(reply, new FakeStripeError(404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${path}).`))
    }
    const named = Object.fromEntries(match.candidate.names.map((name, i) => [name, decodeURIComponent(match.result![i + 1]!)]))
    const held = holds.find((candidate) => !candidate.used && candidate.method === request.method && candidate.path.test(path))
    if (held) held.used = true
    let body: unknown
    let failure: FakeStripeError | undefined
    try {
      body = structuredClone(match.candidate.handler(params, named, request))
      if (request.method === 'POST' && idempotencyKey) idempotency.set(idempotencyKey, { fingerprint, status: 200, body })
    } catch (error) {
      if (!(error instanceof FakeStripeError)) throw error
      failure = error
    }
    // A held answer reflects the state when the request arrived and is sent on release (a slow network).
    if (held) {
      held.arrived()
      await held.released
    }
    return failure ? sendError(reply, failure) : reply.code(200).send(body)
  })

  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const baseUrl = `http://127.0.0.1:${port}`

  // -- events and test controls --------------------------------------------------------------
  function event(type: string, object: Json, previousAttributes?: Json): Stripe.Event {
    const created = now()
    const built = {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: FAKE_API_VERSION,
      created,
      livemode: false,
      type,
      data: { object: structuredClone(object), ...(previousAttributes ? { previous_attributes: previousAttributes } : {}) },
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    } as unknown as Stripe.Event
    events.push(built)
    return built
  }

  function markCanceled(sub: Json) {
    sub.status = 'canceled'
    sub.canceled_at = now()
    sub.ended_at = now()
  }

  function subscription(subId: string): Json {
    const sub = subscriptions.get(subId)
    if (!sub) throw new Error(`fake stripe: no subscription ${subId}`)
    return sub
  }

  const subscriptionEvent = (type: string, sub: Json, previous?: Json) => event(type, renderSubscription(sub, []), previous)

  function sign(stripeEvent: Stripe.Event, options: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(stripeEvent)
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? webhookSecret,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    })
    return { payload, headers: { 'content-type': 'application/json', [headerKey(STRIPE_SIGNATURE_HEADER)]: header } }
  }

  return {
    url: baseUrl,
    port,
    secretKey,
    webhookSecret,
    requests,
    events,
    customers,
    products,
    prices,
    sessions,
    subscriptions,
    invoices,
    charges,
    portalSessions,
    portalConfigurations,

    /** Where `deliver` posts events. */
    setWebhookUrl(url: string) {
      webhookUrl = url
    },

    /** Makes the next `count` API requests answer 500 api_error. */
    failNextRequests(count = 1) {
      failNext = count
    },

    /**
     * Holds back the answer to the next request matching `method` and `path`: it is computed when
     * the request arrives (the state Stripe had then) and sent only on `release()`, like a slow
     * network. `arrived` resolves when the request has come in, so a test can look at the app's
     * state while the call is in flight, with no timers.
     */
    hold(method: string, path: RegExp): { arrived: Promise<void>; release(): void } {
      let arrived!: () => void
      let release!: () => void
      const arrival = new Promise<void>((resolve) => (arrived = resolve))
      const released = new Promise<void>((resolve) => (release = resolve))
      holds.push({ method, path, used: false, arrived, released })
      return { arrived: arrival, release }
    },

    /** The payment methods attached to a customer (as GET /v1/customers/:id/payment_methods lists them). */
    paymentMethodsOf(customerId: string): Json[] {
      return [...paymentMethods.values()].filter((method) => method.customer === customerId)
    },

    /** Requests to a path (e.g. '/v1/checkout/sessions'), optionally one method, in order. */
    requestsTo(path: string, method?: string) {
      return requests.filter((r) => r.path === path && (!method || r.method === method))
    },

    /**
     * The buyer finishes a checkout: the session completes; in subscription mode a subscription
     * (and a paid invoice) is created, in payment mode a payment intent with the session's
     * `payment_intent_data.metadata`. Returns the events Stripe sends, in its usual order.
     */
    completeCheckout(sessionId: string, options: { subscriptionStatus?: string; paymentStatus?: 'paid' | 'unpaid' } = {}): Stripe.Event[] {
      const session = sessions.get(sessionId)
      if (!session) throw new Error(`fake stripe: no session ${sessionId}`)
      if (session.status !== 'open') throw new Error(`fake stripe: session ${sessionId} is ${String(session.status)}`)
      let customer = session.customer as string | null
      if (!customer) {
        customer = createCustomer({ email: session.customer_email ?? undefined }).id as string
        session.customer = customer
      }
      const out: Stripe.Event[] = []
      if (session.mode === 'subscription') {
        const recurring = session._lineItems.filter((line) => prices.get(line.price as string)!.type === 'recurring')
        const data = session._subscriptionData ?? {}
        const trialEnd = typeof data.trialDays === 'number' ? now() + data.trialDays * DAY : ((data.trialEnd as number | null) ?? null)
        const status = options.subscriptionStatus ?? (trialEnd !== null ? 'trialing' : 'active')
        const sub = createSubscriptionFor(customer, recurring, structuredClone((data.metadata as Record<string, string>) ?? {}), status, trialEnd)
        sub.default_payment_method = attachCard(customer)
        session.subscription = sub.id
        session.status = 'complete'
        // A trial defers the first payment: Stripe reports no payment required at checkout.
        session.payment_status = trialEnd !== null ? 'no_payment_required' : sub.status === 'active' ? 'paid' : 'unpaid'
        out.push(subscriptionEvent('customer.subscription.created', sub))
        const invoice = invoices.get(sub.latest_invoice as string)!
        out.push(event(invoice.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', invoice))
        out.push(event('checkout.session.completed', renderSession(session, [])))
      } else {
        const paid = (options.paymentStatus ?? 'paid') === 'paid'
        const amount = session._lineItems.reduce((sum, line) => sum + (line.amount_total as number), 0)
        // Payment mode saves no card unless asked to (setup_future_usage), which the app does not.
        const charge = createCharge(customer, amount, session.currency as string, structuredClone((session._paymentIntentData?.metadata as Record<string, string>) ?? {}))
        session.payment_intent = charge.payment_intent
        session.status = 'complete'
        session.payment_status = paid ? 'paid' : 'unpaid'
        out.push(event('checkout.session.completed', renderSession(session, [])))
      }
      return out
    },

    /** Sets a subscription's status (e.g. 'past_due', 'unpaid', 'active'); returns customer.subscription.updated. */
    setSubscriptionStatus(subId: string, status: string): Stripe.Event[] {
      const sub = subscription(subId)
      const previous = { status: sub.status }
      if (status === 'canceled') markCanceled(sub)
      else sub.status = status
      return [subscriptionEvent('customer.subscription.updated', sub, previous)]
    },

    /** A renewal payment fails: a new open invoice, the subscription goes past_due. */
    failPayment(subId: string): Stripe.Event[] {
      const sub = subscription(subId)
      const previous = { status: sub.status }
      const invoice = createInvoice(sub, 'open')
      sub.status = 'past_due'
      return [event('invoice.payment_failed', invoice), subscriptionEvent('customer.subscription.updated', sub, previous)]
    },

    /** A renewal succeeds: the period moves on a month, a paid invoice, the subscription is active. */
    renew(subId: string): Stripe.Event[] {
      const sub = subscription(subId)
      const items = (sub.items as { data: Json[] }).data
      const previous = { status: sub.status, items: structuredClone(sub.items) }
      for (const item of items) {
        item.current_period_start = item.current_period_end
        item.current_period_end = (item.current_period_end as number) + MONTH
      }
      sub.status = 'active'
      const invoice = createInvoice(sub, 'paid')
      return [event('invoice.paid', invoice), subscriptionEvent('customer.subscription.updated', sub, previous)]
    },

    /**
     * Stripe's notice three days before a trial ends (or at once when a trial is shortened):
     * customer.subscription.trial_will_end. Nothing changes.
     */
    trialWillEnd(subId: string): Stripe.Event[] {
      const sub = subscription(subId)
      if (sub.status !== 'trialing') throw new Error(`fake stripe: subscription ${subId} is not trialing`)
      return [subscriptionEvent('customer.subscription.trial_will_end', sub)]
    },

    /**
     * The trial ends and the first payment succeeds: the subscription becomes active, the period
     * runs a month from the trial end, a paid invoice with its charge.
     */
    endTrial(subId: string): Stripe.Event[] {
      const sub = subscription(subId)
      if (sub.status !== 'trialing') throw new Error(`fake stripe: subscription ${subId} is not trialing`)
      const previous = { status: sub.status, items: structuredClone(sub.items) }
      for (const item of (sub.items as { data: Json[] }).data) {
        item.current_period_start = sub.trial_end
        item.current_period_end = (sub.trial_end as number) + MONTH
      }
      sub.status = 'active'
      const invoice = createInvoice(sub, 'paid')
      return [event('invoice.paid', invoice), subscriptionEvent('customer.subscription.updated', sub, previous)]
    },

    /** The subscription ends (cancelled now): customer.subscription.deleted. */
    cancel(subId: string): Stripe.Event[] {
      const sub = subscription(subId)
      markCanceled(sub)
      return [subscriptionEvent('customer.subscription.deleted', sub)]
    },

    /** Fully refunds the latest paid charge of a customer: charge.refunded. */
    refundLatestCharge(customerId: string): Stripe.Event[] {
      const charge = [...charges.values()].filter((c) => c.customer === customerId && !c.refunded).at(-1)
      if (!charge) throw new Error(`fake stripe: no charge to refund for ${customerId}`)
      charge.refunded = true
      charge.amount_refunded = charge.amount
      return [event('charge.refunded', charge)]
    },

    /** The session a user's checkout made (the latest one with this client_reference_id). */
    latestSessionFor(userId: string) {
      return [...sessions.values()].filter((s) => s.client_reference_id === userId).at(-1)
    },

    /** Signs an event as Stripe would (the exact body string and its Stripe-Signature header). */
    sign,

    /** POSTs signed events to the webhook URL, one after another; resolves to the statuses. */
    async deliver(toDeliver: Stripe.Event[], url = webhookUrl): Promise<number[]> {
      if (!url) throw new Error('fake stripe: no webhook URL to deliver to')
      const statuses: number[] = []
      for (const item of toDeliver) {
        const { payload, headers } = sign(item)
        const response = await fetch(url, { method: 'POST', headers, body: payload })
        await response.arrayBuffer()
        statuses.push(response.status)
      }
      return statuses
    },

    async close() {
      await app.close()
    },
  }
}

/** The Stripe-mode environment for an app pointed at this fake. */
export function stripeEnv(fake: { url: string; secretKey: string; webhookSecret: string }): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_PUBLISHABLE_KEY: FAKE_PUBLISHABLE_KEY,
    STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
    STRIPE_API_URL: fake.url,
  }
}
