import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyGoalsForm } from '#common/goals'
import { optInConsentText } from '#common/opt-in'
import { coachingCalls, commitments, conversations, subscribers, weeklyReports } from '#server/db/schema'
import { GRACE_MS } from '#server/services/billing'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser, type SignedIn } from '../helpers/users'

/**
 * Every route declared `auth: 'paid'` refuses a user whom the one paid rule does not count as
 * paid, the chat send included. The table must name every paid route the app has, so a new one
 * cannot be added without being checked here.
 */
const DAY = 86_400_000
let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  app.services.chat.settings.fallbackDelayMs = 0
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

/** A valid request for each paid route (the conversation and the call are the user's own). */
type Ids = { conversationId: string; callId: string; commitmentId: string }

function paidRequests({ conversationId, callId, commitmentId }: Ids): Array<{ route: string; request: InjectOptions }> {
  const at = (path: string) => path.replace(':id', conversationId)
  return [
    { route: 'GET /api/goals', request: { method: 'GET', url: '/api/goals' } },
    { route: 'PUT /api/goals', request: { method: 'PUT', url: '/api/goals', payload: emptyGoalsForm() } },
    { route: 'GET /api/calls/recent', request: { method: 'GET', url: '/api/calls/recent' } },
    { route: 'GET /api/dashboard/stats', request: { method: 'GET', url: '/api/dashboard/stats' } },
    { route: 'GET /api/calls/diagnostics', request: { method: 'GET', url: '/api/calls/diagnostics' } },
    { route: 'GET /api/calls/next', request: { method: 'GET', url: '/api/calls/next' } },
    { route: 'GET /api/calls/schedule', request: { method: 'GET', url: '/api/calls/schedule' } },
    {
      route: 'PUT /api/calls/schedule',
      request: {
        method: 'PUT',
        url: '/api/calls/schedule',
        payload: { dailyCallTime: '07:30', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled: true },
      },
    },
    { route: 'GET /api/calls/:id', request: { method: 'GET', url: `/api/calls/${callId}` } },
    // Vapi is not configured here: through the guard, "Call me now" answers 409 CALLS_NOT_CONFIGURED.
    { route: 'POST /api/calls/test', request: { method: 'POST', url: '/api/calls/test' } },
    { route: 'GET /api/opt-in', request: { method: 'GET', url: '/api/opt-in' } },
    // An event stream that stays open: read as a stream, closed once its answer began (see send).
    { route: 'GET /api/opt-in/events', request: { method: 'GET', url: '/api/opt-in/events', payloadAsStream: true } },
    {
      route: 'POST /api/opt-in',
      request: { method: 'POST', url: '/api/opt-in', payload: { consentText: optInConsentText(app.config.smsOptInNumber) } },
    },
    { route: 'GET /api/conversations', request: { method: 'GET', url: '/api/conversations?search=plan' } },
    { route: 'POST /api/conversations', request: { method: 'POST', url: '/api/conversations', payload: { title: 'Weekly plan' } } },
    { route: 'GET /api/conversations/:id', request: { method: 'GET', url: at('/api/conversations/:id') } },
    { route: 'PATCH /api/conversations/:id', request: { method: 'PATCH', url: at('/api/conversations/:id'), payload: { title: 'Renamed' } } },
    {
      route: 'PUT /api/conversations/:id/content',
      request: { method: 'PUT', url: at('/api/conversations/:id/content'), payload: { content: [] } },
    },
    {
      route: 'POST /api/conversations/:id/messages',
      request: { method: 'POST', url: at('/api/conversations/:id/messages'), payload: { text: 'Help me plan my week', id: randomUUID() } },
    },
    {
      route: 'POST /api/conversations/:id/messages',
      request: {
        method: 'POST',
        url: at('/api/conversations/:id/messages'),
        headers: { accept: 'text/event-stream' },
        payload: { text: 'And stream it', id: randomUUID() },
      },
    },
    { route: 'POST /api/conversations/:id/reopen', request: { method: 'POST', url: at('/api/conversations/:id/reopen') } },
    { route: 'DELETE /api/conversations/:id', request: { method: 'DELETE', url: at('/api/conversations/:id') } },
    // The voice gateway's socket: through the guard, a plain GET (no upgrade) answers 426.
    { route: 'GET /api/voice', request: { method: 'GET', url: '/api/voice' } },
    { route: 'GET /api/commitments', request: { method: 'GET', url: '/api/commitments' } },
    { route: 'POST /api/commitments/:id/done', request: { method: 'POST', url: `/api/commitments/${commitmentId}/done` } },
    { route: 'GET /api/reports', request: { method: 'GET', url: '/api/reports' } },
    { route: 'GET /api/reports/:week', request: { method: 'GET', url: `/api/reports/${REPORT_WEEK}` } },
    { route: 'GET /api/progress', request: { method: 'GET', url: '/api/progress' } },
    // Direct coach access is Elite's: through the guard, these users (Premium) hear ELITE_REQUIRED.
    { route: 'GET /api/coach/messages', request: { method: 'GET', url: '/api/coach/messages' } },
    { route: 'POST /api/coach/messages', request: { method: 'POST', url: '/api/coach/messages', payload: { body: 'Hello coach' } } },
    { route: 'GET /api/coach/messages/stream', request: { method: 'GET', url: '/api/coach/messages/stream', payloadAsStream: true } },
    // Goal templates are Elite's too (docs/decisions/081).
    { route: 'GET /api/goal-templates', request: { method: 'GET', url: '/api/goal-templates' } },
    { route: 'GET /api/goal-templates/versions/:versionId', request: { method: 'GET', url: `/api/goal-templates/versions/${randomUUID()}` } },
    { route: 'GET /api/goal-templates/offer', request: { method: 'GET', url: '/api/goal-templates/offer' } },
    { route: 'POST /api/goal-templates/offers/:offerId/accept', request: { method: 'POST', url: `/api/goal-templates/offers/${randomUUID()}/accept` } },
    { route: 'POST /api/goal-templates/offers/:offerId/decline', request: { method: 'POST', url: `/api/goal-templates/offers/${randomUUID()}/decline` } },
    // And the 1-on-1 sessions (docs/decisions/082).
    { route: 'GET /api/coach/sessions', request: { method: 'GET', url: '/api/coach/sessions' } },
    { route: 'GET /api/coach/sessions/slots', request: { method: 'GET', url: '/api/coach/sessions/slots' } },
    { route: 'POST /api/coach/sessions/holds', request: { method: 'POST', url: '/api/coach/sessions/holds', payload: { startsAt: '2030-01-07T16:00:00Z' } } },
    { route: 'POST /api/coach/sessions/holds/:holdId/confirm', request: { method: 'POST', url: `/api/coach/sessions/holds/${randomUUID()}/confirm` } },
    { route: 'POST /api/coach/sessions/:sessionId/cancel', request: { method: 'POST', url: `/api/coach/sessions/${randomUUID()}/cancel` } },
    // What the coach remembers (docs/decisions/083): the fact ids are no one's, so through the guard they answer 404.
    { route: 'GET /api/memory', request: { method: 'GET', url: '/api/memory' } },
    { route: 'PUT /api/memory/pause', request: { method: 'PUT', url: '/api/memory/pause', payload: { paused: false } } },
    { route: 'PATCH /api/memory/facts/:factId', request: { method: 'PATCH', url: `/api/memory/facts/${randomUUID()}`, payload: { statement: 'Runs on Sundays' } } },
    { route: 'DELETE /api/memory/facts/:factId', request: { method: 'DELETE', url: `/api/memory/facts/${randomUUID()}` } },
    { route: 'DELETE /api/memory', request: { method: 'DELETE', url: '/api/memory', payload: { confirm: true } } },
  ]
}

/** The week of the report each past-due user has. */
const REPORT_WEEK = '2026-11-22'

/** A user whose Stripe subscription became past due `daysAgo` days ago, with one conversation and one call. */
async function pastDueUser(daysAgo: number): Promise<{ user: SignedIn; ids: Ids }> {
  const user = await signedInUser(app)
  const now = app.services.clock.now()
  await database.db.insert(subscribers).values({
    userId: user.user.id,
    subscribed: true,
    tier: 'premium',
    status: 'past_due',
    source: 'stripe',
    pastDueSince: new Date(now.getTime() - daysAgo * DAY),
    stripeSubscriptionId: `sub_${randomUUID()}`,
    stripeCustomerId: `cus_${randomUUID()}`,
  })
  const [conversation] = await database.db
    .insert(conversations)
    .values({ userId: user.user.id, title: 'Before it lapsed', content: [] })
    .returning({ id: conversations.id })
  const [call] = await database.db
    .insert(coachingCalls)
    .values({ userId: user.user.id, callDate: now, completionStatus: 'completed' })
    .returning({ id: coachingCalls.id })
  const [commitment] = await database.db
    .insert(commitments)
    .values({ userId: user.user.id, callId: call!.id, position: 0, text: 'Walk daily', madeAt: now })
    .returning({ id: commitments.id })
  await database.db.insert(weeklyReports).values({
    userId: user.user.id,
    weekEnding: REPORT_WEEK,
    timeZone: 'America/New_York',
    periodStart: new Date('2026-11-15T23:00:00Z'),
    periodEnd: new Date('2026-11-22T23:00:00Z'),
    generatedAt: now,
    content: {
      calls: { completed: 0, missed: 0, secondsTalked: 0, minutesTalked: 0 },
      areasDiscussed: [],
      commitments: { made: 0, kept: 0, missed: 0, open: 0 },
      mood: { points: [], average: null, previousAverage: null, trend: null },
      scores: [],
    },
  })
  return { user, ids: { conversationId: conversation!.id, callId: call!.id, commitmentId: commitment!.id } }
}

type Answer = { statusCode: number; headers: Record<string, unknown>; json(): { error?: { code?: string } } }

async function send(user: SignedIn, request: InjectOptions): Promise<Answer> {
  if (!request.payloadAsStream) return app.inject({ ...request, headers: { ...user.headers, ...(request.headers ?? {}) } })
  // An event stream answers as soon as it starts: a refusal is read whole, an open stream closed.
  const controller = new AbortController()
  const response = await app.inject({ ...request, headers: { ...user.headers, ...(request.headers ?? {}) }, signal: controller.signal })
  if (response.statusCode < 300) {
    controller.abort()
    return { statusCode: response.statusCode, headers: response.headers, json: () => ({}) }
  }
  let body = ''
  for await (const chunk of response.stream()) body += String(chunk)
  return { statusCode: response.statusCode, headers: response.headers, json: () => JSON.parse(body) as { error?: { code?: string } } }
}

describe('the paid guard', () => {
  it('covers every route the app declares paid', () => {
    const declared = app.routeAccess
      // HEAD routes are Fastify's copies of the GETs, with the same guard.
      .filter((route) => route.auth === 'paid' && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url}`)
      .sort()
    const tested = [...new Set(paidRequests({ conversationId: 'x', callId: 'x', commitmentId: 'x' }).map((entry) => entry.route))].sort()
    expect(tested).toEqual(declared)
  })

  it('refuses a subscription past due beyond the grace period on every paid route, chat send included', async () => {
    expect(GRACE_MS).toBe(7 * DAY)
    const { user, ids } = await pastDueUser(8)
    const { conversationId } = ids
    for (const { route, request } of paidRequests(ids)) {
      const response = await send(user, request)
      expect({ route, status: response.statusCode, code: response.json().error?.code }).toEqual({ route, status: 403, code: 'PAYMENT_REQUIRED' })
    }
    // Nothing was written: the conversation is there, untouched, with no message.
    const [row] = await database.db.select().from(conversations).where(eq(conversations.id, conversationId))
    expect(row).toMatchObject({ title: 'Before it lapsed', content: [] })
  })

  it('lets the same subscription through while it is inside the grace period, uncached where the route says so', async () => {
    const { user, ids } = await pastDueUser(6)
    const noStore = new Set(app.routeAccess.filter((r) => r.cache === 'no-store').map((r) => `${r.method} ${r.url}`))
    expect(noStore.has('GET /api/goals')).toBe(true)
    for (const { route, request } of paidRequests(ids)) {
      const response = await send(user, request)
      const cache = noStore.has(route) ? 'no-store' : response.headers['cache-control']
      const code = response.statusCode >= 300 ? response.json().error?.code : undefined
      const through =
        response.statusCode < 300 ||
        (route === 'POST /api/calls/test' && code === 'CALLS_NOT_CONFIGURED') ||
        (route === 'GET /api/voice' && code === 'UPGRADE_REQUIRED') ||
        ((route.includes('/api/coach/messages') || route.includes('/api/goal-templates') || route.includes('/api/coach/sessions')) && code === 'ELITE_REQUIRED') ||
        (route.startsWith('PATCH /api/memory/facts') && code === 'NOT_FOUND') ||
        (route.startsWith('DELETE /api/memory/facts') && code === 'NOT_FOUND')
      expect({ route, ok: through, cache }).toEqual({ route, ok: true, cache: response.headers['cache-control'] })
    }
  })
})
