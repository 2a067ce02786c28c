/**
 * The daily calls' loop in the embedded mode for a test file, on a test clock: the app listens (the
 * Vapi fake posts its webhooks to it), the fake places the calls, and `advanceTo` runs what comes
 * due on the way (the tick, the dialler, the webhooks' jobs, the sweep). Registers its own hooks.
 */
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import type { PlanId } from '#common/plans'
import { coachingCallEvents, coachingCalls, profiles, vapiWebhookEvents } from '#server/db/schema'
import { activateTestingPlan } from '#server/services/billing'
import { FakeVapi } from '../fakes/vapi'
import type { ScenarioInput } from '../fakes/vapi-calls'
import { buildTestApp } from './app'
import { fakeClock } from './clock'
import { createTestDatabase, type TestDatabase } from './db'
import { insertUser } from './factories'
import { manualTimers } from './timers'
import { createWebhookCredential } from './vapi-credential'
import { freePort } from './process'
import { VAPI_SECRET } from './texts-harness'

/** The webhook secret of the calls' tests (the texts' harness uses the same). */
export const CALLS_WEBHOOK_SECRET = VAPI_SECRET

type HarnessOptions = {
  /** The test clock's start (default Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York). */
  start?: Date
  /** More environment for the app (the lines, the pace, caller numbers). */
  env?: Record<string, string>
  /** The account's lines at the fake (what its answers' `subscriptionLimits` say; default 10, Vapi's). */
  vapiLines?: number
}

export type PersonOptions = { plan?: PlanId; time?: string; zone?: string; scenario?: ScenarioInput; evening?: string | null }

export function useCallsHarness(options: HarnessOptions = {}) {
  let phoneCounter = 1000
  const harness = {
    database: undefined as unknown as TestDatabase,
    fake: undefined as unknown as FakeVapi,
    app: undefined as unknown as FastifyInstance,
    clock: undefined as unknown as ReturnType<typeof fakeClock>,
    timers: undefined as unknown as ReturnType<typeof manualTimers>,
    port: 0,
    /** The webhook credential `vapi:setup` would have made for the secret, in the fake's account. */
    credentialId: '',
    /** The app's error log lines (JSON), for the loud logs. */
    errorLogs: [] as Array<Record<string, unknown>>,

    /** Runs everything due up to now: armed jobs, the fake's webhooks, the jobs they enqueue. */
    async settle(): Promise<void> {
      for (let round = 0; round < 50; round++) {
        await harness.fake.settled()
        harness.timers.advanceTo(harness.clock.now())
        await harness.app.jobRunner!.drain()
        await harness.fake.settled()
        const due = harness.timers.armed().some((instant) => instant.getTime() <= harness.clock.now().getTime())
        // Messages not tried yet (one that failed waits for its job's retry, an armed timer, or the sweep).
        const pending = await harness.database.db
          .select({ id: vapiWebhookEvents.id })
          .from(vapiWebhookEvents)
          .where(and(isNull(vapiWebhookEvents.processedAt), eq(vapiWebhookEvents.attempts, 0)))
        if (!due && pending.length === 0) return
      }
    },

    /** Moves the test clock to `to`, running what comes due on the way. */
    async advanceTo(to: Date): Promise<void> {
      for (;;) {
        const now = harness.clock.now().getTime()
        const next = harness.timers.armed().find((instant) => instant.getTime() > now && instant.getTime() <= to.getTime())
        if (!next) break
        harness.timers.advanceTo(next)
        await harness.settle()
      }
      harness.timers.advanceTo(to)
      await harness.settle()
    },

    /** A member who has onboarded, with a plan and a call time (and the fake's scenario for their number). */
    async person(person: PersonOptions = {}) {
      const phone = `2025${String(phoneCounter++).padStart(6, '0')}`
      const user = await insertUser(harness.database.db, { phoneNumber: phone })
      await harness.database.db
        .update(profiles)
        .set({ onboardingCompleted: true, dailyCallTime: person.time ?? '10:00', timezone: person.zone ?? 'America/New_York', eveningCallTime: person.evening ?? null })
        .where(eq(profiles.id, user.id))
      await activateTestingPlan(harness.database.db, user.id, person.plan ?? 'basic', harness.clock.now())
      if (person.scenario) harness.fake.calls.setScenario(`+1${phone}`, person.scenario)
      return { user, phone: `+1${phone}` }
    },

    callsOf: (userId: string) =>
      harness.database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate), asc(coachingCalls.attempt)),
    timelineOf: async (callId: string) =>
      (await harness.database.db.select().from(coachingCallEvents).where(eq(coachingCallEvents.callId, callId)).orderBy(asc(coachingCallEvents.at), asc(coachingCallEvents.id))).map(
        (event) => event.type,
      ),
    dialsTo: (number: string) => harness.fake.calls.list().filter((call) => call.customer?.number === number),

    /** The app's environment (Vapi on the fake, the webhook's secret, and the file's own). */
    env: (): Record<string, string> => ({
      APP_URL: `http://127.0.0.1:${harness.port}`,
      VAPI_API_KEY: harness.fake.apiKey,
      VAPI_API_URL: harness.fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: CALLS_WEBHOOK_SECRET,
      ...options.env,
    }),
  }

  beforeAll(async () => {
    harness.database = await createTestDatabase()
    harness.port = await freePort()
  })

  afterAll(async () => {
    await harness.database?.destroy()
  })

  beforeEach(async () => {
    harness.clock = fakeClock(options.start ?? new Date('2026-06-15T13:50:00Z'))
    harness.timers = manualTimers(harness.clock)
    harness.fake = await FakeVapi.start({ clock: harness.clock })
    if (options.vapiLines !== undefined) harness.fake.calls.concurrencyLimit = options.vapiLines
    harness.credentialId = await createWebhookCredential(harness.fake, CALLS_WEBHOOK_SECRET)
    harness.errorLogs = []
    harness.app = await buildTestApp({
      database: harness.database,
      clock: harness.clock,
      timers: harness.timers.timers,
      logger: { level: 'error', stream: { write: (line: string) => void harness.errorLogs.push(JSON.parse(line) as Record<string, unknown>) } },
      env: harness.env(),
    })
    await harness.app.listen({ port: harness.port, host: '127.0.0.1' })
  })

  afterEach(async () => {
    await harness.app.close()
    await harness.fake.close()
    // The file's database is shared by its tests: nobody of this test is called in the next one.
    await harness.database.db.update(profiles).set({ dailyCallTime: null, eveningCallTime: null })
  })

  return harness
}
