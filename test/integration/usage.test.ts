/**
 * The plan's in-app budget (docs/decisions/061) as the chat and the account page see it: chat turns
 * are counted as the chat accepts each one, against the person's calendar month and day in their own
 * time zone; a turn past the month's budget or the day's guard is refused before anything is stored
 * or the assistant asked; two tabs at once never spend more than is left; GET /api/account/usage
 * says what is used and left, and when it comes back. Time is the test clock.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConversationSchema } from '#common/chat'
import { AccountUsageResponseSchema, USAGE_BUDGETS } from '#common/usage'
import { createSession } from '#server/auth/session'
import { coachingCalls, conversations, profiles, subscribers, usageDays, usageVoiceCalls } from '#server/db/schema'
import { FakeVapi } from '../fakes/vapi'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let fake: FakeVapi
let app: FastifyInstance
/** Monday 15 June 2026, 10:00 AM in New York. */
const START = new Date('2026-06-15T14:00:00Z')
const clock = fakeClock(START)

beforeAll(async () => {
  database = await createTestDatabase()
  fake = await FakeVapi.start()
  app = await buildTestApp({ database, clock, env: { VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_test_coach', VAPI_API_URL: fake.url } })
})

afterAll(async () => {
  await app?.close()
  await fake?.close()
  await database?.destroy()
})

afterEach(() => {
  clock.set(START)
  fake.reset()
})

/**
 * A member on `tier` with the plan running (not in a trial), or in the free trial, written as
 * testing mode writes it, on the test clock.
 */
async function member(tier: 'basic' | 'premium' | 'elite', options: { trial?: boolean; timeZone?: string } = {}): Promise<SignedIn> {
  const who = await signedInUser(app)
  const now = clock.now()
  const trialEnd = new Date(now.getTime() + (options.trial ? 7 : -30) * 86_400_000)
  await database.db.insert(subscribers).values({ userId: who.user.id, subscribed: true, tier, status: options.trial ? 'trialing' : 'active', source: 'testing', trialEnd, createdAt: now, updatedAt: now })
  if (options.timeZone) await database.db.update(profiles).set({ timezone: options.timeZone }).where(eq(profiles.id, who.user.id))
  return who
}

/** The same person signed in again now (a jump of the clock past a week outlives a session). */
async function signedInNow(who: SignedIn): Promise<SignedIn> {
  const session = await createSession(app.db, app.services.clock, who.user.id)
  const cookie = `session=${session.token}`
  return { ...who, cookie, headers: { cookie, origin: who.headers.origin } }
}

/** Chat turns already taken on a local date. */
const turnsOn = (userId: string, localDate: string, chatTurns: number) => database.db.insert(usageDays).values({ userId, localDate, chatTurns, updatedAt: clock.now() })

/** An in-app voice call that counted `seconds` on a local date. */
async function voiceOn(userId: string, localDate: string, seconds: number) {
  const [call] = await database.db.insert(coachingCalls).values({ userId, callDate: clock.now(), slot: 'web', kind: 'web', completionStatus: 'completed', callDuration: seconds }).returning()
  await database.db.insert(usageVoiceCalls).values({ callId: call!.id, userId, localDate, seconds, updatedAt: clock.now() })
}

async function conversation(who: SignedIn) {
  const response = await app.inject({ method: 'POST', url: '/api/conversations', headers: who.headers, payload: {} })
  expect(response.statusCode, response.body).toBe(201)
  return ConversationSchema.parse(response.json()).id
}

const send = (who: SignedIn, id: string, text: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: { ...who.headers, ...headers }, payload: { text } })

async function storedTexts(id: string) {
  const [row] = await database.db.select({ content: conversations.content }).from(conversations).where(eq(conversations.id, id))
  return (row?.content ?? []).map((message) => `${message.sender}:${message.text}`)
}

async function turnsCounted(userId: string) {
  return database.db.select({ localDate: usageDays.localDate, chatTurns: usageDays.chatTurns }).from(usageDays).where(eq(usageDays.userId, userId)).orderBy(usageDays.localDate)
}

async function usage(who: SignedIn) {
  const response = await app.inject({ method: 'GET', url: '/api/account/usage', headers: who.headers })
  expect(response.statusCode, response.body).toBe(200)
  expect(response.headers['cache-control']).toBe('no-store')
  return AccountUsageResponseSchema.parse(response.json())
}

describe('chat turns: a monthly budget per plan, in the person’s own month', () => {
  it('takes the last turn of the month, then refuses the next one before storing it or asking the assistant (429 with Retry-After), until the 1st', async () => {
    const who = await member('basic')
    const month = USAGE_BUDGETS.basic.chatTurns.month
    // Earlier this month, and last month (which does not count).
    await turnsOn(who.user.id, '2026-06-01', month - 1)
    await turnsOn(who.user.id, '2026-05-31', 80)
    const id = await conversation(who)

    const last = await send(who, id, 'The last one this month')
    expect(last.statusCode, last.body).toBe(201)
    expect(fake.requestsTo('POST', '/chat')).toHaveLength(1)

    const refused = await send(who, id, 'One more')
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toEqual({
      error: { code: 'USAGE_LIMIT_REACHED', message: `You've used this month's ${month} messages to your coach. They come back on July 1.` },
    })
    // Midnight of 1 July in New York is 04:00 UTC: 15 days and 14 hours away.
    expect(refused.headers['retry-after']).toBe(String((15 * 24 + 14) * 3600))
    // Streamed, it is the same JSON refusal, never a stream.
    const streamed = await send(who, id, 'One more', { accept: 'text/event-stream' })
    expect(streamed.statusCode).toBe(429)
    expect(streamed.headers['content-type']).toMatch(/^application\/json/)
    expect(streamed.json().error.code).toBe('USAGE_LIMIT_REACHED')
    // Nothing of the refused turns was stored, counted or sent on.
    const texts = await storedTexts(id)
    expect(texts).toHaveLength(2)
    expect(texts[0]).toBe('user:The last one this month')
    expect(texts[1]).toMatch(/^ai:echo:The last one this month/)
    expect(fake.requestsTo('POST', '/chat')).toHaveLength(1)
    expect(await turnsCounted(who.user.id)).toEqual([
      { localDate: '2026-05-31', chatTurns: 80 },
      { localDate: '2026-06-01', chatTurns: month - 1 },
      { localDate: '2026-06-15', chatTurns: 1 },
    ])

    // 30 June, 11:59 PM in New York: still June.
    clock.set(new Date('2026-07-01T03:59:00Z'))
    const later = await signedInNow(who)
    expect((await send(later, id, 'Still June')).statusCode).toBe(429)
    // 1 July, midnight in New York: a new month.
    clock.set(new Date('2026-07-01T04:00:00Z'))
    const july = await send(later, id, 'Hello July')
    expect(july.statusCode, july.body).toBe(201)
    expect((await turnsCounted(who.user.id)).at(-1)).toEqual({ localDate: '2026-07-01', chatTurns: 1 })
  })

  it('counts the month in the person’s own zone (a profile in Los Angeles)', async () => {
    const who = await member('premium', { timeZone: 'America/Los_Angeles' })
    await turnsOn(who.user.id, '2026-06-30', USAGE_BUDGETS.premium.chatTurns.month)
    const id = await conversation(who)
    // 1 July 05:00 UTC is 10 PM on 30 June in Los Angeles (already July in New York).
    clock.set(new Date('2026-07-01T05:00:00Z'))
    const later = await signedInNow(who)
    const refused = await send(later, id, 'Hi')
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe(String(2 * 3600))
    clock.set(new Date('2026-07-01T07:00:00Z'))
    expect((await send(later, id, 'Hi')).statusCode).toBe(201)
  })

  it('the daily guard: at most the day’s turns, whatever is left of the month, until local midnight', async () => {
    const who = await member('premium')
    const day = USAGE_BUDGETS.premium.chatTurns.day
    await turnsOn(who.user.id, '2026-06-15', day)
    const id = await conversation(who)
    const refused = await send(who, id, 'Again')
    expect(refused.statusCode).toBe(429)
    expect(refused.json().error.message).toBe(`You've sent today's ${day} messages to your coach, the most in one day. You can chat again tomorrow.`)
    // Until midnight in New York (04:00 UTC on the 16th): 14 hours.
    expect(refused.headers['retry-after']).toBe(String(14 * 3600))
    expect(fake.requestsTo('POST', '/chat')).toHaveLength(0)
    clock.set(new Date('2026-06-16T04:00:00Z'))
    expect((await send(who, id, 'A new day')).statusCode).toBe(201)
  })

  it('two tabs at once, on two servers, never spend more than is left: exactly the turns left are taken', async () => {
    const who = await member('basic')
    const month = USAGE_BUDGETS.basic.chatTurns.month
    await turnsOn(who.user.id, '2026-06-02', month - 3)
    const ids = await Promise.all([conversation(who), conversation(who)])
    // A second server on the same database (as WEB_CONCURRENCY or another machine runs it).
    const other = await buildTestApp({ database, clock, env: { VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_test_coach', VAPI_API_URL: fake.url } })
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? app : other).inject({ method: 'POST', url: `/api/conversations/${ids[i % 2]!}/messages`, headers: who.headers, payload: { text: `Tab ${i % 2} message ${i}` } }),
      ),
    ).finally(() => other.close())
    const statuses = responses.map((response) => response.statusCode).sort()
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429])
    expect(fake.requestsTo('POST', '/chat')).toHaveLength(3)
    expect(await turnsCounted(who.user.id)).toEqual([
      { localDate: '2026-06-02', chatTurns: month - 3 },
      { localDate: '2026-06-15', chatTurns: 3 },
    ])
  })

  it('a turn that is not accepted (not the person’s conversation, a repeated id) is not counted', async () => {
    const who = await member('basic')
    const other = await member('basic')
    const theirs = await conversation(other)
    expect((await send(who, theirs, 'Not mine')).statusCode).toBe(404)
    const mine = await conversation(who)
    const messageId = randomUUID()
    const first = await app.inject({ method: 'POST', url: `/api/conversations/${mine}/messages`, headers: who.headers, payload: { text: 'Once', id: messageId } })
    expect(first.statusCode, first.body).toBe(201)
    const again = await app.inject({ method: 'POST', url: `/api/conversations/${mine}/messages`, headers: who.headers, payload: { text: 'Once', id: messageId } })
    expect(again.statusCode).toBe(409)
    expect(await turnsCounted(who.user.id)).toEqual([{ localDate: '2026-06-15', chatTurns: 1 }])
    expect(await turnsCounted(other.user.id)).toEqual([])
  })
})

describe('GET /api/account/usage', () => {
  it('says what this month and today used and left of each budget, and when each comes back', async () => {
    const who = await member('premium', { timeZone: 'America/Chicago' })
    await turnsOn(who.user.id, '2026-05-31', 500)
    await turnsOn(who.user.id, '2026-06-03', 40)
    await turnsOn(who.user.id, '2026-06-15', 7)
    await voiceOn(who.user.id, '2026-05-20', 3000)
    await voiceOn(who.user.id, '2026-06-10', 600)
    await voiceOn(who.user.id, '2026-06-15', 95)
    const budget = USAGE_BUDGETS.premium
    expect(await usage(who)).toEqual({
      tier: 'premium',
      timeZone: 'America/Chicago',
      month: {
        period: '2026-06',
        resetsAt: '2026-07-01T05:00:00.000Z',
        voiceSeconds: { used: 695, limit: budget.voiceMinutes.month * 60, left: budget.voiceMinutes.month * 60 - 695 },
        chatTurns: { used: 47, limit: budget.chatTurns.month, left: budget.chatTurns.month - 47 },
      },
      today: {
        date: '2026-06-15',
        resetsAt: '2026-06-16T05:00:00.000Z',
        voiceSeconds: { used: 95, limit: budget.voiceMinutes.day * 60, left: budget.voiceMinutes.day * 60 - 95 },
        chatTurns: { used: 7, limit: budget.chatTurns.day, left: budget.chatTurns.day - 7 },
      },
      callCeilingSeconds: 1800,
    })
  })

  it('the free trial is a tier of its own; once it is over, the plan’s budget applies', async () => {
    const who = await member('elite', { trial: true })
    const trial = await usage(who)
    expect(trial.tier).toBe('trial')
    expect(trial.month.voiceSeconds.limit).toBe(USAGE_BUDGETS.trial.voiceMinutes.month * 60)
    expect(trial.today.chatTurns.limit).toBe(USAGE_BUDGETS.trial.chatTurns.day)
    // Testing mode's trial becomes the plan when it ends.
    clock.set(new Date(START.getTime() + 8 * 86_400_000))
    const after = await usage(await signedInNow(who))
    expect(after.tier).toBe('elite')
    expect(after.month.chatTurns.limit).toBe(USAGE_BUDGETS.elite.chatTurns.month)
  })

  it('what is left never goes below zero; without a plan nothing is left; without a session it is 401', async () => {
    const who = await member('basic')
    await turnsOn(who.user.id, '2026-06-15', 150)
    const over = await usage(who)
    expect(over.today.chatTurns).toEqual({ used: 150, limit: 100, left: 0 })
    expect(over.month.chatTurns).toEqual({ used: 150, limit: 300, left: 150 })

    const unpaid = await signedInUser(app)
    const none = await usage(unpaid)
    expect(none.tier).toBeNull()
    expect(none.month.voiceSeconds).toEqual({ used: 0, limit: 0, left: 0 })
    expect(none.today.chatTurns).toEqual({ used: 0, limit: 0, left: 0 })

    const anonymous = await app.inject({ method: 'GET', url: '/api/account/usage' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED')
  })
})
