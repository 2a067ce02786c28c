import { freePort } from './process'
import { eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { PlanId } from '#common/plans'
import { SMS_WEBHOOK_PATH } from '#common/webhooks'
import { consentEvents, profiles, vapiWebhookEvents } from '#server/db/schema'
import { activateTestingPlan } from '#server/services/billing'
import { FakeTwilio } from '../fakes/twilio'
import { FakeVapi } from '../fakes/vapi'
import type { ScenarioInput } from '../fakes/vapi-calls'
import { buildTestApp } from './app'
import { fakeClock } from './clock'
import type { TestDatabase } from './db'
import { insertUser } from './factories'
import { manualTimers } from './timers'
import { createWebhookCredential } from './vapi-credential'

export const VAPI_SECRET = 'whsec-test-vapi-0123456789abcdef0123'
export const SMS_NUMBER = '+15555550123'

export { freePort }

let phoneCounter = 2000

export type Harness = Awaited<ReturnType<typeof startTextsHarness>>

/**
 * The real app on a test clock and manual timers, listening on a port (the fakes call its
 * webhooks), with Vapi and Twilio pointed at their fakes; `advanceTo` moves the clock and runs
 * every job, webhook and delivery that comes due on the way.
 */
export async function startTextsHarness(database: TestDatabase, options: { start: Date; port: number; twilio?: boolean }) {
  const clock = fakeClock(options.start)
  const timers = manualTimers(clock)
  const vapi = await FakeVapi.start({ clock })
  await createWebhookCredential(vapi, VAPI_SECRET)
  const appUrl = `http://127.0.0.1:${options.port}`
  const twilio = await FakeTwilio.start({ clock, numbers: [SMS_NUMBER], webhookUrl: `${appUrl}${SMS_WEBHOOK_PATH}` })
  const app: FastifyInstance = await buildTestApp({
    database,
    clock,
    timers: timers.timers,
    env: {
      APP_URL: appUrl,
      VAPI_API_KEY: vapi.apiKey,
      VAPI_API_URL: vapi.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: VAPI_SECRET,
      SMS_OPT_IN_NUMBER: SMS_NUMBER,
      ...(options.twilio === false ? {} : twilio.env(SMS_NUMBER)),
    },
  })
  await app.listen({ port: options.port, host: '127.0.0.1' })

  /** Runs everything due up to now: armed jobs, the fake's webhooks, the jobs they enqueue. */
  async function settle(): Promise<void> {
    for (let round = 0; round < 50; round++) {
      await vapi.settled()
      timers.advanceTo(clock.now())
      await app.jobRunner!.drain()
      await vapi.settled()
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
   * Jumps the clock to `to` (skipping the minutes between) and runs what is due there: the
   * schedules re-arm from `to`, so a later advanceTo runs each one on its own minute again.
   */
  async function jumpTo(to: Date): Promise<void> {
    clock.set(to)
    await settle()
  }

  type PersonOptions = { plan?: PlanId; time?: string; zone?: string; scenario?: ScenarioInput; texts?: boolean; phone?: string }

  /** A paid, onboarded person with a daily call time, consent to calls (sign-up) and, unless `texts: false`, to texts. */
  async function person(options: PersonOptions = {}) {
    const digits = options.phone ?? `2025${String(phoneCounter++).padStart(6, "0")}`
    const user = await insertUser(database.db, { phoneNumber: digits })
    await database.db
      .update(profiles)
      .set({ onboardingCompleted: true, dailyCallTime: options.time ?? '10:00', timezone: options.zone ?? 'America/New_York' })
      .where(eq(profiles.id, user.id))
    await activateTestingPlan(database.db, user.id, options.plan ?? 'basic', clock.now())
    if (options.texts !== false) {
      await database.db.insert(consentEvents).values({ userId: user.id, channel: 'texts', action: 'granted', source: 'opt_in_screen', text: 'test opt-in', at: clock.now() })
    }
    const phone = `+1${digits}`
    if (options.scenario) vapi.calls.setScenario(phone, options.scenario)
    return { user, phone }
  }

  return {
    app,
    clock,
    timers,
    vapi,
    twilio,
    settle,
    advanceTo,
    jumpTo,
    person,
    async close() {
      await app.close()
      await vapi.close()
      await twilio.close()
    },
  }
}
