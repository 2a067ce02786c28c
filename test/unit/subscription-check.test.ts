import { QueryClient } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SessionUser } from '#common/auth'

// The web module is loaded by a computed path: the server's type check (no DOM types) must not
// follow it into the web app. Its interface, as this test uses it:
type SubscriptionCheck = {
  CHECK_THROTTLE_MS: number
  runSubscriptionCheck(client: QueryClient, options?: { force?: boolean }): Promise<void>
  startSubscriptionChecks(client: QueryClient): () => void
}
const webModule = (path: string) => import(/* @vite-ignore */ new URL(`../../web/src/features/${path}`, import.meta.url).href)
const { CHECK_THROTTLE_MS, runSubscriptionCheck, startSubscriptionChecks } = (await webModule('billing/subscription-check.ts')) as SubscriptionCheck
const { billingKeys } = (await webModule('billing/api.ts')) as { billingKeys: { subscription: readonly string[] } }
const authKeys = { me: ['auth', 'me'] as const }

const user = (id: string, overrides: Partial<SessionUser> = {}): SessionUser => ({
  id,
  email: `${id}@example.com`,
  fullName: 'Jordan Rivera',
  phoneNumber: '2025234567',
  emailConfirmed: true,
  hasSubscription: false,
  hasCompletedPayment: false,
  hasOptedIn: false,
  subscriptionTier: null,
  subscriptionEnd: null,
  partnerProgram: 'GENERAL',
  ...overrides,
})

const answer = (subscribed: boolean) => ({
  subscribed,
  subscription_tier: subscribed ? 'premium' : null,
  subscription_end: subscribed ? '2026-12-21T12:00:00.000Z' : null,
  paid: subscribed,
  status: subscribed ? 'active' : null,
  source: subscribed ? 'stripe' : null,
  in_grace_period: false,
  grace_period_end: null,
  trial_end: null,
  cancel_at: null,
  trial_available: !subscribed,
  payment_mode: 'stripe',
})

let fetchMock: ReturnType<typeof vi.fn>
let now = 1_000_000

beforeEach(() => {
  vi.useFakeTimers()
  now += 10 * CHECK_THROTTLE_MS
  vi.setSystemTime(now)
  fetchMock = vi.fn()
  vi.stubGlobal('fetch', fetchMock)
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

const respond = (body: unknown, status = 200) => fetchMock.mockResolvedValueOnce(new Response(JSON.stringify(body), { status }))

describe('the check-subscription client (spec 1 §4)', () => {
  it('merges the answer into the session user and skips a check within 5 s', async () => {
    const client = new QueryClient()
    client.setQueryData(authKeys.me, user('u1'))
    respond(answer(true))
    await runSubscriptionCheck(client)
    expect(client.getQueryData<SessionUser>(authKeys.me)).toMatchObject({ hasSubscription: true, subscriptionTier: 'premium', subscriptionEnd: '2026-12-21T12:00:00.000Z' })
    expect(client.getQueryData(billingKeys.subscription)).toMatchObject({ subscribed: true })

    vi.setSystemTime(now + CHECK_THROTTLE_MS - 1)
    await runSubscriptionCheck(client)
    expect(fetchMock).toHaveBeenCalledTimes(1)

    // Once subscribed is true it stays true locally, even if a later check says otherwise.
    vi.setSystemTime(now + CHECK_THROTTLE_MS)
    respond(answer(false))
    await runSubscriptionCheck(client)
    expect(fetchMock).toHaveBeenCalledTimes(2)
    expect(client.getQueryData<SessionUser>(authKeys.me)?.hasSubscription).toBe(true)
  })

  it('only logs a failing check', async () => {
    const client = new QueryClient()
    client.setQueryData(authKeys.me, user('u2'))
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    respond({ error: { code: 'INTERNAL', message: 'x' } }, 500)
    await expect(runSubscriptionCheck(client)).resolves.toBeUndefined()
    expect(log).toHaveBeenCalledTimes(1)
    expect(client.getQueryData<SessionUser>(authKeys.me)?.hasSubscription).toBe(false)
  })

  it('runs about 100 ms after load and again after a sign-in, never while signed out', async () => {
    const client = new QueryClient()
    client.setQueryData(authKeys.me, null)
    const stop = startSubscriptionChecks(client)
    await vi.advanceTimersByTimeAsync(150)
    expect(fetchMock).not.toHaveBeenCalled()

    respond(answer(false))
    client.setQueryData(authKeys.me, user('u3'))
    await vi.advanceTimersByTimeAsync(0)
    expect(fetchMock).toHaveBeenCalledTimes(1)
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/billing/check-subscription')
    stop()
  })
})
