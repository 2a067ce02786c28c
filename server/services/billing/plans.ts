import type { Plan, PlanId } from '#common/plans'

/** The three monthly plans of spec 1 §9, defined once; the web reads them from GET /api/plans. */
export const PLANS: readonly Plan[] = [
  {
    id: 'basic',
    name: 'Basic',
    priceMonthly: 50,
    interval: 'month',
    features: ['Daily 5-minute accountability calls', 'Weekly progress reports', 'SMS messaging', 'Basic dashboard'],
    mostPopular: false,
  },
  {
    id: 'premium',
    name: 'Premium',
    priceMonthly: 197,
    interval: 'month',
    features: [
      '2x daily calls',
      'Detailed analytics',
      'Monthly goal sessions',
      'Advanced progress tracking',
      'Priority support',
    ],
    mostPopular: true,
  },
  {
    id: 'elite',
    name: 'Elite',
    priceMonthly: 497,
    interval: 'month',
    features: [
      'Everything in Premium',
      'Monthly 1-on-1 human coaching',
      'Custom goal templates',
      'White-glove onboarding',
      'Direct coach access',
    ],
    mostPopular: false,
  },
]

export function findPlan(id: PlanId): Plan {
  const plan = PLANS.find((candidate) => candidate.id === id)
  if (!plan) throw new Error(`unknown plan ${id}`)
  return plan
}

/** The Stripe price lookup key of a plan's monthly price (created by `npm run stripe:setup`). */
export const priceLookupKey = (id: PlanId) => `momentum_${id}_monthly`

/** The plan whose monthly price has this lookup key, if any. */
export function planForLookupKey(key: string | null | undefined): PlanId | null {
  if (!key) return null
  return PLANS.find((plan) => priceLookupKey(plan.id) === key)?.id ?? null
}
