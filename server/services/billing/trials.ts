/**
 * The trial-ending reminder: one email per trial, TRIAL_REMINDER_DAYS before it ends, in Stripe
 * mode and in testing mode alike (the `trial-reminders` job runs it every hour).
 *
 * Exactly once, with any number of runners at the same time: a reminder is claimed by a
 * conditional `UPDATE … SET trial_reminder_sent_at = now WHERE trial_reminder_sent_at IS NULL …
 * RETURNING` over rows picked `FOR UPDATE SKIP LOCKED`, so each row is claimed by one runner only,
 * and only then sent. A send that fails gives its claim back, and the run fails so that the job's
 * retry (or the next hour) tries again; a claim whose process dies before sending is not retried
 * (a missed reminder rather than a double one).
 */
import { and, asc, eq, gt, inArray, isNull, lte, notInArray, type SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import { TRIAL_REMINDER_DAYS } from '#common/billing'
import { TRIAL_DAYS } from '#common/plans'
import type { Db } from '#server/db/client'
import { profiles, subscribers, users } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import type { Clock } from '#server/lib/clock'
import { findPlan } from './plans'

const DAY_MS = 24 * 60 * 60 * 1000
/** Reminders claimed per statement. */
const BATCH = 50

type TrialReminderDeps = { db: Db; clock: Clock; log: Logger; mailer: Mailer; appUrl: string }

type TrialReminderRun = { sent: number }

/** "November 28, 2026 at 12:00 PM EST", in the member's time zone (UTC if it is not one). */
function formatWhen(date: Date, timeZone: string | null): string {
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }
  try {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: timeZone ?? 'UTC' }).format(date)
  } catch {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' }).format(date)
  }
}

export function createTrialReminders(deps: TrialReminderDeps) {
  const { db, log } = deps

  /** Claims up to BATCH reminders due at `now` (trials ending within the window, not yet reminded). */
  async function claim(now: Date, skip: string[]) {
    const horizon = new Date(now.getTime() + TRIAL_REMINDER_DAYS * DAY_MS)
    const due: SQL[] = [
      eq(subscribers.status, 'trialing'),
      eq(subscribers.subscribed, true),
      eq(subscribers.cancelScheduled, false),
      isNull(subscribers.trialReminderSentAt),
      gt(subscribers.trialEnd, now),
      lte(subscribers.trialEnd, horizon),
    ]
    if (skip.length > 0) due.push(notInArray(subscribers.userId, skip))
    const picked = db
      .select({ userId: subscribers.userId })
      .from(subscribers)
      .where(and(...due))
      .orderBy(asc(subscribers.trialEnd))
      .limit(BATCH)
      .for('update', { skipLocked: true })
    return db
      .update(subscribers)
      .set({ trialReminderSentAt: now })
      .where(and(inArray(subscribers.userId, picked), isNull(subscribers.trialReminderSentAt)))
      .returning({ userId: subscribers.userId, tier: subscribers.tier, trialEnd: subscribers.trialEnd, source: subscribers.source })
  }

  async function send(reminder: Awaited<ReturnType<typeof claim>>[number]) {
    const [user] = await db
      .select({ email: users.email, fullName: users.fullName, timeZone: profiles.timezone })
      .from(users)
      .leftJoin(profiles, eq(profiles.id, users.id))
      .where(eq(users.id, reminder.userId))
      .limit(1)
    if (!user || !reminder.trialEnd) return
    const plan = reminder.tier ? findPlan(reminder.tier) : null
    const planName = plan ? `the ${plan.name} plan` : 'your plan'
    const when = formatWhen(reminder.trialEnd, user.timeZone)
    const after =
      reminder.source === 'testing'
        ? 'This server runs in payment testing mode, so no payment will be taken: your plan simply continues.'
        : `After that, your plan continues${plan ? ` at $${plan.priceMonthly} a month` : ''}, charged to the card you gave at checkout. You don't need to do anything to keep your daily coaching.`
    await deps.mailer.send(
      composeEmail({
        kind: 'trial_ending',
        to: user.email,
        subject: 'Your Momentum Coach free trial ends soon',
        greeting: `Hi ${user.fullName},`,
        paragraphs: [
          `Your ${TRIAL_DAYS}-day free trial of ${planName} ends on ${when}.`,
          after,
          ...(reminder.source === 'testing' ? [] : ['To change your plan or cancel before you are charged, choose Manage billing on your dashboard.']),
        ],
        action: 'Open your dashboard',
        link: `${deps.appUrl}/dashboard`,
        footer: 'You are receiving this because you started a free trial of Momentum Coach.',
      }),
    )
  }

  /** Sends every reminder due now, once each. Throws after the run when a send failed (the claim was given back). */
  async function sendTrialReminders(): Promise<TrialReminderRun> {
    const now = deps.clock.now()
    const failedIds: string[] = []
    let sent = 0
    for (;;) {
      const claimed = await claim(now, failedIds)
      for (const reminder of claimed) {
        try {
          await send(reminder)
          sent += 1
        } catch (error) {
          failedIds.push(reminder.userId)
          log.error({ err: error, userId: reminder.userId }, 'trial reminder not sent: the claim is given back')
          await db
            .update(subscribers)
            .set({ trialReminderSentAt: null })
            .where(and(eq(subscribers.userId, reminder.userId), eq(subscribers.trialReminderSentAt, now)))
        }
      }
      if (claimed.length < BATCH) break
    }
    if (failedIds.length > 0) throw new Error(`${failedIds.length} trial reminder(s) could not be sent; they are retried`)
    return { sent }
  }

  return { sendTrialReminders }
}
