/**
 * The diagnostics screen's calls: the five server functions the app depends
 * on, under the original functions' names, each mapped to our /api, and one timed call of any of them.
 */
import { z } from 'zod'
import { api, isApiError } from '#web/lib/api-client'

export type FunctionTest = {
  name: string
  description: string
  method: 'GET' | 'POST'
  path: string
  body?: unknown
}

export const FUNCTION_TESTS: readonly FunctionTest[] = [
  { name: 'check-subscription', description: 'Whether you are subscribed, your plan and when the period ends.', method: 'GET', path: '/api/billing/check-subscription' },
  { name: 'get-stripe-key', description: "The payment provider's publishable key.", method: 'GET', path: '/api/billing/publishable-key' },
  {
    name: 'create-embedded-checkout',
    description: 'Creates an embedded checkout session for plan premium.',
    method: 'POST',
    path: '/api/billing/embedded-checkout',
    body: { plan: 'premium' },
  },
  { name: 'customer-portal', description: 'Opens a billing portal session for your customer.', method: 'POST', path: '/api/billing/customer-portal' },
  { name: 'vapi-config', description: 'Whether voice calls are configured, and the assistant id.', method: 'GET', path: '/api/voice/config' },
]

/** What a call answered (any JSON), or its error, and how long it took. */
export type FunctionResult =
  | { state: 'success'; durationMs: number; json: unknown }
  | { state: 'error'; durationMs: number; message: string }

const anyJson = z.unknown()

/** Calls one function and times it; `unauthenticated` when the server answered 401. */
export async function callFunction(test: FunctionTest): Promise<{ result: FunctionResult; unauthenticated: boolean }> {
  const started = performance.now()
  try {
    const json = test.method === 'GET' ? await api.get(test.path, anyJson) : await api.post(test.path, test.body, anyJson)
    return { result: { state: 'success', durationMs: Math.round(performance.now() - started), json }, unauthenticated: false }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return {
      result: { state: 'error', durationMs: Math.round(performance.now() - started), message },
      unauthenticated: isApiError(error) && error.status === 401,
    }
  }
}
