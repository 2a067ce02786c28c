/**
 * The client side of check-subscription:
 * - it runs after sign-in, and on load about 100 ms later;
 * - it is skipped when the previous check was under 5 s ago;
 * - once `subscribed` is true it stays true locally (for that user);
 * - a failing check is only logged.
 * Its answer goes to the billing subscription query and is merged into the session user
 * (hasSubscription, subscriptionTier, subscriptionEnd).
 *
 * Started once from the root route through a dynamic import, so it costs no first-paint bytes;
 * the fetch client and zod load with the first check (api.ts), made only for a signed-in user.
 */
import type { QueryClient } from '@tanstack/react-query'
import { authKeys, type SessionUser } from '#web/features/auth/api'
import { billingKeys, loadBillingRequests } from './api'

/** @public (the subscription check's unit test drives it) */
export const CHECK_THROTTLE_MS = 5_000
const CHECK_INITIAL_DELAY_MS = 100

let lastCheckAt = -Infinity
let started = false
const subscribedUsers = new Set<string>()

/** Runs the check now unless one ran under 5 s ago (or `force`). Never throws. */
export async function runSubscriptionCheck(queryClient: QueryClient, options: { force?: boolean } = {}): Promise<void> {
  const user = queryClient.getQueryData<SessionUser | null>(authKeys.me)
  if (!user) return
  const now = Date.now()
  if (!options.force && now - lastCheckAt < CHECK_THROTTLE_MS) return
  lastCheckAt = now
  try {
    const { checkSubscription } = await loadBillingRequests()
    const answer = await checkSubscription()
    if (answer.subscribed) subscribedUsers.add(user.id)
    const subscribed = answer.subscribed || subscribedUsers.has(user.id)
    queryClient.setQueryData(billingKeys.subscription, { ...answer, subscribed })
    queryClient.setQueryData<SessionUser | null>(authKeys.me, (current) =>
      current && current.id === user.id
        ? {
            ...current,
            hasSubscription: subscribed,
            subscriptionTier: answer.subscription_tier ?? current.subscriptionTier,
            subscriptionEnd: answer.subscription_end ?? current.subscriptionEnd,
          }
        : current,
    )
  } catch (error) {
    console.error('Subscription check failed:', error)
  }
}

/** Starts the checks for this page (idempotent): on load after 100 ms, and after every sign-in. */
export function startSubscriptionChecks(queryClient: QueryClient): () => void {
  if (started) return () => {}
  started = true
  let signedInAs = queryClient.getQueryData<SessionUser | null>(authKeys.me)?.id ?? null
  const timer = globalThis.setTimeout(() => void runSubscriptionCheck(queryClient), CHECK_INITIAL_DELAY_MS)
  const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.query.queryKey[0] !== authKeys.me[0] || event.query.queryKey[1] !== authKeys.me[1]) return
    const user = event.query.state.data as SessionUser | null | undefined
    const id = user?.id ?? null
    if (id === signedInAs) return
    signedInAs = id
    if (id === null) return
    // A new sign-in (or the first answer of /api/me): check now, within the 5 s throttle.
    void runSubscriptionCheck(queryClient)
  })
  return () => {
    globalThis.clearTimeout(timer)
    unsubscribe()
    started = false
  }
}
