/**
 * The commitment loop through the real app on a test clock: a daily call placed through the SDK
 * against the Vapi fake, whose end-of-call report reaches the Vapi webhook; the commitments it
 * made become rows; the next call's variables carry the open ones (numbered) and its report marks
 * them kept or missed; the dashboard's endpoints read them and mark one done, for their owner only.
 */
import { freePort } from '../helpers/process'
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { coachingCalls, commitments, profiles, vapiWebhookEvents } from '#server/db/schema'
import { FakeVapi } from '../fakes/vapi'
import type { ScenarioInput } from '../fakes/vapi-calls'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { proveNumber } from '../helpers/factories'
import { manualTimers } from '../helpers/timers'
import { signedInUser } from '../helpers/users'
import { createWebhookCredential } from '../helpers/vapi-credential'

const SECRET = 'whsec-test-vapi-commitments-0123456789'
const at = (iso: string) => new Date(iso)

let database: TestDatabase
let fake: FakeVapi
let app: FastifyInstance
let clock: ReturnType<typeof fakeClock>
let timers: ReturnType<typeof manualTimers>
let port: number
let phoneCounter = 3000


beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  // Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT).
  clock = fakeClock(at('2026-06-15T13:50:00Z'))
  timers = manualTimers(clock)
  fake = await FakeVapi.start({ clock })
  await createWebhookCredential(fake, SECRET)
  app = await buildTestApp({
    database,
    clock,
    timers: timers.timers,
    env: {
      APP_URL: `http://127.0.0.1:${port}`,
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: SECRET,
    },
  })
  await app.listen({ port, host: '127.0.0.1' })
})

afterEach(async () => {
  await app.close()
  await fake.close()
})

/** Runs everything due up to now: armed jobs, the fake's webhooks, the jobs they enqueue. */
async function settle(): Promise<void> {
  for (let round = 0; round < 50; round++) {
    await fake.settled()
    timers.advanceTo(clock.now())
    await app.jobRunner!.drain()
    await fake.settled()
    const due = timers.armed().some((instant) => instant.getTime() <= clock.now().getTime())
    const pending = await database.db.select({ id: vapiWebhookEvents.id }).from(vapiWebhookEvents).where(isNull(vapiWebhookEvents.processedAt))
    if (!due && pending.length === 0) return
  }
}

/** Moves the test clock to `to`, running what comes due on the way. */
async function advanceTo(to: Date): Promise<void> {
  while (true) {
    const next = timers.armed().find((instant) => instant.getTime() > clock.now().getTime() && instant.getTime() <= to.getTime())
    if (!next) break
    timers.advanceTo(next)
    await settle()
  }
  timers.advanceTo(to)
  await settle()
}

/**
 * Jumps the clock to `to` without running each minute on the way (a process that slept runs a
 * missed schedule once), then runs what is due: the nights between two calls pass in one step.
 */
async function jumpTo(to: Date): Promise<void> {
  clock.set(to)
  await settle()
}

/** A paid person with a 10:00 AM New York call and a session; `scenario` is what their phone does. */
async function person(scenario?: ScenarioInput) {
  const phone = `2025${String(phoneCounter++).padStart(6, '0')}`
  const signedIn = await signedInUser(app, { paid: 'basic' })
  await database.db.update(profiles).set({ onboardingCompleted: true, dailyCallTime: '10:00', timezone: 'America/New_York', phoneNumber: phone }).where(eq(profiles.id, signedIn.user.id))
  await proveNumber(database.db, signedIn.user.id, phone)
  if (scenario) fake.calls.setScenario(`+1${phone}`, scenario)
  return { ...signedIn, phone: `+1${phone}` }
}

const callsOf = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate))
const commitmentsOf = (userId: string) => database.db.select().from(commitments).where(eq(commitments.userId, userId)).orderBy(asc(commitments.madeAt), asc(commitments.position))
const dialsTo = (number: string) => fake.calls.list().filter((call) => call.customer?.number === number)

describe('the commitment loop through the Vapi webhook', () => {
  it('stores the commitments of a call, asks the next call about them, and records each kept or missed', async () => {
    const who = await person({
      name: 'answered',
      result: { commitments: ['Walk 20 minutes before work', 'Call Mom on Sunday', 'Write the budget'] },
    })

    // Monday's call: its report makes three commitments, open.
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [monday] = await callsOf(who.user.id)
    expect(monday).toMatchObject({ completionStatus: 'completed', askedCommitmentIds: [] })
    const made = await commitmentsOf(who.user.id)
    expect(made.map((row) => [row.text, row.status, row.callId, row.position])).toEqual([
      ['Walk 20 minutes before work', 'open', monday!.id, 0],
      ['Call Mom on Sunday', 'open', monday!.id, 1],
      ['Write the budget', 'open', monday!.id, 2],
    ])
    expect(made[0]!.madeAt).toEqual(monday!.endedAt)
    expect(dialsTo(who.phone)[0]!.assistantOverrides?.variableValues?.openCommitments).toBe('')

    // The person did the budget already and says so in the app.
    const done = await app.inject({ method: 'POST', url: `/api/commitments/${made[2]!.id}/done`, headers: who.headers })
    expect(done.statusCode).toBe(200)
    expect(done.json()).toMatchObject({ commitment: { id: made[2]!.id, status: 'kept', resolvedBy: 'app' }, keptRate: { kept: 1, missed: 0, percent: 100 } })

    // Tuesday's call opens with the two still open, numbered; it reports the walk kept and the
    // call to Mom missed (by its words only, as the extraction model may not see the numbers).
    fake.calls.setScenario(who.phone, {
      name: 'answered',
      result: {
        commitments: ['Walk 30 minutes before work'],
        commitmentsReviewed: [
          { number: 1, commitment: 'Walk 20 minutes before work', outcome: 'kept' },
          { commitment: 'call mom on sunday', outcome: 'missed' },
        ],
      },
    })
    await jumpTo(at('2026-06-16T13:50:00Z'))
    await advanceTo(at('2026-06-16T14:10:00Z'))
    const tuesdayDial = dialsTo(who.phone)[1]!
    expect(tuesdayDial.assistantOverrides?.variableValues?.openCommitments).toBe('1. Walk 20 minutes before work\n2. Call Mom on Sunday')
    const tuesday = (await callsOf(who.user.id))[1]!
    expect(tuesday).toMatchObject({ completionStatus: 'completed', askedCommitmentIds: [made[0]!.id, made[1]!.id] })

    const after = await commitmentsOf(who.user.id)
    expect(after.map((row) => [row.text, row.status, row.resolvedBy, row.resolvedCallId])).toEqual([
      ['Walk 20 minutes before work', 'kept', 'call', tuesday.id],
      ['Call Mom on Sunday', 'missed', 'call', tuesday.id],
      ['Write the budget', 'kept', 'app', null],
      ['Walk 30 minutes before work', 'open', null, null],
    ])
    expect(after[0]!.resolvedAt).toEqual(tuesday.endedAt)

    // The dashboard: the open one, and two kept of three settled.
    const list = await app.inject({ method: 'GET', url: '/api/commitments', headers: who.headers })
    expect(list.statusCode).toBe(200)
    expect(list.json()).toEqual({
      open: [{ id: after[3]!.id, text: 'Walk 30 minutes before work', status: 'open', madeAt: tuesday.endedAt!.toISOString(), callId: tuesday.id, resolvedAt: null, resolvedBy: null }],
      keptRate: { days: 30, kept: 2, missed: 1, percent: 67 },
    })

    // Wednesday's call asks about the one left; the fake's default review keeps it.
    fake.calls.setScenario(who.phone, 'answered')
    await jumpTo(at('2026-06-17T13:50:00Z'))
    await advanceTo(at('2026-06-17T14:10:00Z'))
    expect(dialsTo(who.phone)[2]!.assistantOverrides?.variableValues?.openCommitments).toBe('1. Walk 30 minutes before work')
    const statuses = (await commitmentsOf(who.user.id)).map((row) => [row.text, row.status])
    expect(statuses.slice(3)).toEqual([
      ['Walk 30 minutes before work', 'kept'],
      [expect.stringMatching(/^Take one small step on /), 'open'],
    ])
  })

  it('gives a voice call started in the app the same open commitments, kept on its row', async () => {
    const who = await person({ name: 'answered', result: { commitments: ['Meditate five minutes', 'Plan meals'] } })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const open = await commitmentsOf(who.user.id)
    const web = await app.services.calls.webCalls.open(who.user.id, 600)
    expect(web.variableValues.openCommitments).toBe('1. Meditate five minutes\n2. Plan meals')
    const [row] = await database.db.select().from(coachingCalls).where(eq(coachingCalls.id, web.callId))
    expect(row).toMatchObject({ slot: 'web', askedCommitmentIds: open.map((commitment) => commitment.id) })
  })

  it('makes nothing of a call that did not reach the person, and asks the next call about the same ones', async () => {
    const who = await person({ name: 'answered', result: { commitments: ['Stretch for ten minutes'] } })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    fake.calls.setScenario(who.phone, 'no-answer')
    // Tuesday: three tries, none answered; each was given the open commitment.
    await jumpTo(at('2026-06-16T13:50:00Z'))
    await advanceTo(at('2026-06-16T15:30:00Z'))
    const tuesdays = dialsTo(who.phone).slice(1)
    expect(tuesdays).toHaveLength(3)
    for (const dial of tuesdays) expect(dial.assistantOverrides?.variableValues?.openCommitments).toBe('1. Stretch for ten minutes')
    expect((await commitmentsOf(who.user.id)).map((row) => [row.text, row.status])).toEqual([['Stretch for ten minutes', 'open']])
  })

  it('applies a report delivered twice, or read again by the sweep, once', async () => {
    const who = await person({ name: 'answered', result: { commitments: ['Read ten pages'] } })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [call] = await callsOf(who.user.id)
    const [dial] = dialsTo(who.phone)
    // The same report again, as Vapi may deliver it: the webhook drops it by its key.
    const report = fake.calls.emitter.deliveries.find((delivery) => delivery.type === 'end-of-call-report' && delivery.callId === dial!.id)
    expect(report).toBeDefined()
    const again = await app.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'content-type': 'application/json', 'x-vapi-secret': SECRET }, payload: report!.body })
    expect(again.statusCode).toBe(200)
    await settle()
    // The sweep reading the call from Vapi finds the report applied already.
    await database.db.update(coachingCalls).set({ completionStatus: 'in_progress' }).where(eq(coachingCalls.id, call!.id))
    await advanceTo(at('2026-06-15T15:00:00Z'))
    expect((await commitmentsOf(who.user.id)).map((row) => row.text)).toEqual(['Read ten pages'])
  })
})

describe('the commitments endpoints', () => {
  /** A completed call of the user's with open commitments, written straight to the database. */
  async function withCommitments(userId: string, texts: string[]) {
    const [call] = await database.db
      .insert(coachingCalls)
      .values({ userId, callDate: clock.now(), completionStatus: 'completed', slot: 'test', endedAt: clock.now(), commitments: texts })
      .returning()
    return database.db
      .insert(commitments)
      .values(texts.map((text, position) => ({ userId, callId: call!.id, position, text, madeAt: clock.now() })))
      .returning()
  }

  it("lets only the owner read and mark a commitment: another person's is a 404 and stays open", async () => {
    const owner = await person()
    const other = await person()
    const [mine] = await withCommitments(owner.user.id, ['Plan the week'])
    const [theirs] = await withCommitments(other.user.id, ['Bake bread'])

    const foreign = await app.inject({ method: 'POST', url: `/api/commitments/${theirs!.id}/done`, headers: owner.headers })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toMatchObject({ error: { code: 'NOT_FOUND' } })
    expect((await commitmentsOf(other.user.id))[0]!.status).toBe('open')

    const list = await app.inject({ method: 'GET', url: '/api/commitments', headers: owner.headers })
    expect(list.json().open.map((row: { id: string }) => row.id)).toEqual([mine!.id])
  })

  it('needs a session (401) and a paid plan (403), and refuses another site (403)', async () => {
    const owner = await person()
    const [mine] = await withCommitments(owner.user.id, ['Plan the week'])
    expect((await app.inject({ method: 'GET', url: '/api/commitments' })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: `/api/commitments/${mine!.id}/done`, headers: { origin: owner.headers.origin } })).statusCode).toBe(401)
    const crossSite = await app.inject({ method: 'POST', url: `/api/commitments/${mine!.id}/done`, headers: { cookie: owner.cookie, origin: 'https://evil.example' } })
    expect(crossSite.statusCode).toBe(403)

    const unpaid = await signedInUser(app, { paid: false })
    const refused = await app.inject({ method: 'GET', url: '/api/commitments', headers: unpaid.headers })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ error: { code: 'PAYMENT_REQUIRED' } })
    expect((await commitmentsOf(owner.user.id))[0]!.status).toBe('open')
  })

  it('answers 404 for an id that is not one, 409 for a missed one, and changes nothing marking a kept one again', async () => {
    const owner = await person()
    const [kept, missed] = await withCommitments(owner.user.id, ['Plan the week', 'Run twice'])
    await database.db.update(commitments).set({ status: 'missed', resolvedAt: clock.now(), resolvedBy: 'call' }).where(eq(commitments.id, missed!.id))

    expect((await app.inject({ method: 'POST', url: '/api/commitments/not-a-uuid/done', headers: owner.headers })).statusCode).toBe(404)
    expect((await app.inject({ method: 'POST', url: '/api/commitments/00000000-0000-4000-8000-000000000000/done', headers: owner.headers })).statusCode).toBe(404)
    const conflict = await app.inject({ method: 'POST', url: `/api/commitments/${missed!.id}/done`, headers: owner.headers })
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json()).toMatchObject({ error: { code: 'CONFLICT', field: 'id' } })

    const first = await app.inject({ method: 'POST', url: `/api/commitments/${kept!.id}/done`, headers: owner.headers })
    clock.advance(60_000)
    const second = await app.inject({ method: 'POST', url: `/api/commitments/${kept!.id}/done`, headers: owner.headers })
    expect(second.statusCode).toBe(200)
    expect(second.json().commitment.resolvedAt).toBe(first.json().commitment.resolvedAt)
    expect(second.json().keptRate).toEqual({ days: 30, kept: 1, missed: 1, percent: 50 })
  })

  it('counts in the kept rate only what was settled in the last 30 days', async () => {
    const owner = await person()
    const [old, recent] = await withCommitments(owner.user.id, ['Old one', 'Recent one'])
    await database.db.update(commitments).set({ status: 'kept', resolvedAt: new Date(clock.now().getTime() - 31 * 86_400_000), resolvedBy: 'app' }).where(eq(commitments.id, old!.id))
    await database.db.update(commitments).set({ status: 'missed', resolvedAt: new Date(clock.now().getTime() - 29 * 86_400_000), resolvedBy: 'call' }).where(and(eq(commitments.id, recent!.id)))
    const list = await app.inject({ method: 'GET', url: '/api/commitments', headers: owner.headers })
    expect(list.json()).toEqual({ open: [], keptRate: { days: 30, kept: 0, missed: 1, percent: 0 } })
  })
})
