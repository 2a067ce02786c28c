import type { Plan } from './plans'

/**
 * The three monthly plans of spec 1 §9, defined once. The server serves them (GET /api/plans,
 * billing's checkout and Stripe setup read them through server/services/billing) and the landing
 * page embeds them, so its prerendered HTML shows the plans without asking the API. Plain data with
 * a type-only import: importing it brings no zod into the web bundle.
 */
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
