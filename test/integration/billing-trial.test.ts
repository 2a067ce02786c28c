import { eq } from 'drizzle-orm'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '#server/container'
import { subscribers } from '#server/db/schema'
import { JOBS } from '#server/jobs/index'
import { startInProcessRunner, type JobRunner } from '#server/jobs/in-process'
import { createStripeClient } from '#server/integrations/stripe'
import { checkoutUser } from '#server/services/billing'
import { setupStripe } from '../../scripts/stripe-setup'
import { startFakeStripe, stripeEnv } from '../fakes/stripe'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { startSmtpSink } from '../helpers/smtp-sink'
import { manualTimers } from '../helpers/timers'

/**
 * The trial-ending reminder: the `trial-reminders` job from the registry, run by the embedded
 * runner on a test clock, sending through a real SMTP server. Testing mode here (no Stripe keys):
 * the job must work without Stripe; Stripe trials are written to the same columns by the webhook.
 */
const log = pino({ level: process.env.TEST_LOG ?? 'silent' })
const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = new Date('2026-11-21T12:00:00Z')

let database: TestDatabase
let sink: Awaited<ReturnType<typeof startSmtpSink>>

beforeAll(async () => {
  database = await createTestDatabase()
  sink = await startSmtpSink()
})

afterAll(async () => {
  await sink?.close()
  await database?.destroy()
})

function servicesOn(clock: ReturnType<typeof fakeClock>): Services {
  return createServices(testConfig({ SMTP_URL: sink.url }), { db: database.db, redis: undefined, clock, log })
}

/** A confirmed member who starts the testing-mode trial of `plan` at the clock's time. */
async function trialMember(services: Services, plan: 'basic' | 'premium' | 'elite', fullName: string) {
  const user = await insertUser(database.db, { fullName, emailConfirmedAt: services.clock.now() })
  const activation = await services.billing.activateTestingPlan(checkoutUser(user), plan)
  expect(activation.status).toBe('trialing')
  return user
}

const reminders = (email: string) => sink.mails.filter((mail) => mail.to.includes(email) && /free trial ends soon/.test(mail.subject))

/** Fires the runner's timers one after another up to `to`, letting each run finish (the job re-arms after its run). */
async function runUntil(runner: Pick<JobRunner, 'drain'>, schedule: ReturnType<typeof manualTimers>, to: Date) {
  for (let next = schedule.armed()[0]; next && next.getTime() <= to.getTime(); next = schedule.armed()[0]) {
    schedule.advanceTo(next)
    await runner.drain()
  }
  schedule.advanceTo(to)
  await runner.drain()
}

describe('the trial-reminders job', () => {
  it('is in the registry, every hour', () => {
    expect(JOBS.find((job) => job.name === 'trial-reminders')?.schedule).toEqual({ cron: '41 * * * *', tz: 'UTC' })
  })

  it('emails once, two days before the trial ends, however often it runs', async () => {
    const clock = fakeClock(T0)
    const schedule = manualTimers(clock)
    const services = servicesOn(clock)
    // The hourly reminder and the mail it sends, over nine days on the clock: the registry's
    // every-minute jobs (calls, texts, reports) would fire 13,000 times each, and have tests of their own.
    const jobs = JOBS.filter((job) => job.name === 'trial-reminders' || job.name === 'send-email')
    const runner = startInProcessRunner({ jobs, services, log, timers: schedule.timers })
    try {
      const early = await trialMember(services, 'premium', 'Avery Early') // trial ends T0 + 7 days
      clock.advance(DAY)
      const late = await trialMember(services, 'basic', 'Blake Late') // trial ends T0 + 8 days

      // More than two days before the end: nothing yet.
      await runUntil(runner, schedule, new Date(T0.getTime() + 5 * DAY - HOUR))
      expect(reminders(early.email)).toHaveLength(0)

      // The first run inside the window (12:41 UTC, 1 day 23 h 19 min before the end) sends it.
      await runUntil(runner, schedule, new Date(T0.getTime() + 5 * DAY + HOUR))
      const [mail] = reminders(early.email)
      expect(reminders(early.email)).toHaveLength(1)
      expect(mail!.text).toContain('Hi Avery Early,')
      // In the member's time zone (the profile's default, New York).
      expect(mail!.text).toContain('Your 7-day free trial of the Premium plan ends on November 28, 2026 at 7:00 AM EST.')
      expect(mail!.text).toContain('payment testing mode, so no payment will be taken')
      expect(mail!.text).toContain('http://localhost:3000/dashboard')
      const [row] = await database.db.select().from(subscribers).where(eq(subscribers.userId, early.id))
      expect(row!.trialReminderSentAt).toEqual(new Date('2026-11-26T12:41:00Z'))
      expect(reminders(late.email)).toHaveLength(0)

      // Every later hour runs again, and the job run by hand twice: still one email each.
      await runUntil(runner, schedule, new Date(T0.getTime() + 6 * DAY + 2 * HOUR))
      expect(await services.billing.sendTrialReminders()).toEqual({ sent: 0 })
      expect(await services.billing.sendTrialReminders()).toEqual({ sent: 0 })
      expect(reminders(early.email)).toHaveLength(1)
      expect(reminders(late.email)).toHaveLength(1)

      // After the trial has ended, nothing more.
      await runUntil(runner, schedule, new Date(T0.getTime() + 9 * DAY))
      expect(reminders(early.email)).toHaveLength(1)
      expect(reminders(late.email)).toHaveLength(1)
    } finally {
      await runner.stop()
      await services.close()
    }
  })

  it('sends one email when several runners run at once', async () => {
    const clock = fakeClock(T0)
    const runners = [servicesOn(clock), servicesOn(clock), servicesOn(clock)]
    try {
      const members = [
        await trialMember(runners[0]!, 'elite', 'Casey One'),
        await trialMember(runners[1]!, 'basic', 'Drew Two'),
        await trialMember(runners[2]!, 'premium', 'Emery Three'),
      ]
      clock.set(new Date(T0.getTime() + 5 * DAY + HOUR))
      const runs = await Promise.all(runners.flatMap((services) => [services.billing.sendTrialReminders(), services.billing.sendTrialReminders()]))
      expect(runs.reduce((sum, run) => sum + run.sent, 0)).toBe(3)
      for (const member of members) expect(reminders(member.email)).toHaveLength(1)
    } finally {
      for (const services of runners) await services.close()
    }
  })

  it('gives the claim back when the email cannot be sent, so the retry sends it', async () => {
    const clock = fakeClock(T0)
    const broken = createServices(testConfig({ SMTP_URL: 'smtp://127.0.0.1:9' }), { db: database.db, redis: undefined, clock, log })
    const working = servicesOn(clock)
    try {
      const member = await trialMember(working, 'basic', 'Finley Retry')
      clock.set(new Date(T0.getTime() + 5 * DAY + HOUR))
      await expect(broken.billing.sendTrialReminders()).rejects.toThrow(/could not be sent/)
      const [row] = await database.db.select().from(subscribers).where(eq(subscribers.userId, member.id))
      expect(row!.trialReminderSentAt).toBeNull()
      expect(reminders(member.email)).toHaveLength(0)
      expect(await working.billing.sendTrialReminders()).toEqual({ sent: 1 })
      expect(reminders(member.email)).toHaveLength(1)
    } finally {
      await broken.close()
      await working.close()
    }
  })

  it('reminds a Stripe trial too (written by the webhook), with the price to be charged; not one set to cancel', async () => {
    const clock = fakeClock(T0)
    const fake = await startFakeStripe({ now: () => Math.floor(clock.now().getTime() / 1000) })
    await setupStripe(createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }))
    const services = createServices(testConfig({ SMTP_URL: sink.url, ...stripeEnv(fake) }), { db: database.db, redis: undefined, clock, log })
    try {
      const subscribe = async (fullName: string) => {
        const user = await insertUser(database.db, { fullName, emailConfirmedAt: T0 })
        const { session_id } = await services.billing.createEmbeddedCheckout(checkoutUser(user), 'premium', undefined)
        for (const event of fake.completeCheckout(session_id)) await services.billing.handleEvent(event)
        return { user, subscriptionId: fake.sessions.get(session_id)!.subscription as string }
      }
      const keeping = await subscribe('Indigo Keeping')
      const leaving = await subscribe('Jules Leaving')
      expect((await services.billing.checkSubscription(keeping.user.id)).trial_end).toBe('2026-11-28T12:00:00.000Z')
      // Cancelled from the portal during the trial: Stripe will end it, nothing will be charged.
      await createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }).subscriptions.update(leaving.subscriptionId, { cancel_at_period_end: true })
      for (const event of fake.setSubscriptionStatus(leaving.subscriptionId, 'trialing')) await services.billing.handleEvent(event)

      clock.set(new Date(T0.getTime() + 5 * DAY + HOUR))
      expect(await services.billing.sendTrialReminders()).toEqual({ sent: 1 })
      const [mail] = reminders(keeping.user.email)
      expect(mail!.text).toContain('Your 7-day free trial of the Premium plan ends on November 28, 2026 at 7:00 AM EST.')
      expect(mail!.text).toContain('your plan continues at $197 a month, charged to the card you gave at checkout')
      expect(mail!.text).toContain('Manage billing')
      expect(reminders(leaving.user.email)).toHaveLength(0)

      // Stripe's own notice re-reads the subscription and changes nothing: still one email.
      for (const event of fake.trialWillEnd(keeping.subscriptionId)) await services.billing.handleEvent(event)
      expect(await services.billing.sendTrialReminders()).toEqual({ sent: 0 })
      expect(reminders(keeping.user.email)).toHaveLength(1)
    } finally {
      await services.close()
      await fake.close()
    }
  })

  it('skips a trial Stripe will cancel at its end and a member no longer subscribed', async () => {
    const clock = fakeClock(T0)
    const services = servicesOn(clock)
    try {
      const cancelling = await trialMember(services, 'basic', 'Gray Cancelling')
      await database.db.update(subscribers).set({ source: 'stripe', cancelScheduled: true }).where(eq(subscribers.userId, cancelling.id))
      const cancelled = await trialMember(services, 'basic', 'Harper Cancelled')
      await database.db.update(subscribers).set({ source: 'stripe', status: 'canceled', subscribed: false }).where(eq(subscribers.userId, cancelled.id))
      clock.set(new Date(T0.getTime() + 5 * DAY + HOUR))
      expect(await services.billing.sendTrialReminders()).toEqual({ sent: 0 })
      expect(reminders(cancelling.email)).toHaveLength(0)
      expect(reminders(cancelled.email)).toHaveLength(0)
    } finally {
      await services.close()
    }
  })
})
