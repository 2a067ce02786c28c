import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { BrowserContext, Locator, Page } from '@playwright/test'
import { eq } from 'drizzle-orm'
import { createSession } from '#server/auth/session'
import { openDatabase } from '#server/db/client'
import { coachingCallEvents, coachingCalls, goals, profiles, subscribers } from '#server/db/schema'
import { systemClock } from '#server/lib/clock'
import { FakeVapi } from '../fakes/vapi'
import { createWebhookCredential } from '../helpers/vapi-credential'
import { insertUser } from '../helpers/factories'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test } from './support/fixtures'

/**
 * The calls a person sees: the dashboard's Next call card, a call's detail page with its timeline,
 * and the call schedule. The server is our own (Vapi configured against the fake, so calls are
 * "set up"), on a DATA_DIR this spec seeds before the server starts: a Premium member and two of
 * their calls with their events, written straight into the embedded database the server then opens.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const toast = (page: Page, title: string): Locator => page.locator('[data-sonner-toast]').filter({ hasText: title })

/** Closes every toast and waits until they are gone (axe would measure one fading in or out). */
async function closeToasts(page: Page) {
  const toasts = page.locator('[data-sonner-toast]')
  for (let open = await toasts.count(); open > 0; open = await toasts.count()) {
    await toasts.first().getByRole('button', { name: 'Close toast' }).click()
    await expect.poll(() => toasts.count()).toBeLessThan(open)
  }
}

async function chooseOption(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
  await expect(page.getByLabel(label, { exact: true })).toHaveText(option)
  await expect(page.getByRole('listbox')).toHaveCount(0)
  await expect(page.locator('[data-radix-popper-content-wrapper]')).toHaveCount(0)
}

// --- Wall-clock arithmetic, independent of the app's own -----------------------------------

/** The local date and minutes since midnight of `now` in a zone. */
function localNow(timeZone: string, now = new Date()) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  )
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: Number(parts.hour) * 60 + Number(parts.minute) }
}

/** A half-hour time `hours` from now in the zone, as 24-hour 'HH:MM' and the wizard's 12-hour pieces. */
function halfHourAhead(timeZone: string, hours: number) {
  const minutes = (Math.ceil((localNow(timeZone).minutes + hours * 60) / 30) * 30) % 1440
  const hour24 = Math.floor(minutes / 60)
  const hhmm = `${String(hour24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
  return { minutes, hhmm, time: `${hour24 % 12 === 0 ? 12 : hour24 % 12}:${String(minutes % 60).padStart(2, '0')}`, period: hour24 >= 12 ? 'PM' : 'AM' }
}

const clock12 = (minutes: number) => {
  const hour24 = Math.floor(minutes / 60)
  return `${hour24 % 12 === 0 ? 12 : hour24 % 12}:${String(minutes % 60).padStart(2, '0')} ${hour24 >= 12 ? 'PM' : 'AM'}`
}

/** What the Next call card should say for a person whose calls are at these local times. */
function expectedNextCall(timeZone: string, zoneName: string, times: number[]): string {
  const now = localNow(timeZone)
  const waits = times.map((time) => ({ time, wait: (time - now.minutes + 1440) % 1440 || 1440 }))
  const first = waits.sort((a, b) => a.wait - b.wait)[0]!
  return `${now.minutes + first.wait >= 1440 ? 'Tomorrow' : 'Today'}, ${clock12(first.time)} ${zoneName}`
}

const addDays = (date: string, days: number) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

// --- The seeded member -----------------------------------------------------------------------

const NEW_YORK = 'America/New_York'
let dataDir: string
let fake: FakeVapi
let server: AppServer | undefined
let base = ''
let sessionToken = ''
let completedCallId = ''
let missedCallId = ''
/** The daily call time the member starts with (New York). */
const firstTime = halfHourAhead(NEW_YORK, 4)

async function seed() {
  const database = await openDatabase({ dataDir })
  try {
    await database.migrate()
    const { db } = database
    const user = await insertUser(db, { fullName: 'Riley Chen', emailConfirmedAt: new Date() })
    await db.insert(subscribers).values({ userId: user.id, subscribed: true, tier: 'premium', status: 'active', source: 'testing' })
    await db.update(profiles).set({ onboardingCompleted: true, timezone: NEW_YORK, dailyCallTime: `${firstTime.hhmm}:00` }).where(eq(profiles.id, user.id))
    await db.insert(goals).values({
      userId: user.id,
      lifeArea: 'specific_goals',
      selectedOptions: [],
      specificGoals: { goal_90_days: 'Run a 5k', goal_12_months: null, goal_5_years: null, obstacles: null, preferred_call_time: `${firstTime.time} ${firstTime.period} Eastern (ET)` },
    })

    // Yesterday's call: answered, completed, with its report. And this morning's: not answered, a retry scheduled.
    const today = localNow(NEW_YORK).date
    const dayStart = (date: string) => new Date(`${date}T12:00:00Z`) // 7 or 8 AM in New York
    const at = (start: Date, seconds: number) => new Date(start.getTime() + seconds * 1000)
    const yesterday = dayStart(addDays(today, -1))
    const [completed] = await db
      .insert(coachingCalls)
      .values({
        userId: user.id,
        callDate: yesterday,
        slot: 'daily',
        kind: 'check_in',
        localDate: addDays(today, -1),
        timeZone: NEW_YORK,
        completionStatus: 'completed',
        callDuration: 312,
        areasDiscussed: ['fitness', 'finance'],
        summary: 'Riley planned three morning runs and a first monthly budget.',
        mood: 7,
        energy: 6,
        commitments: ['Run on Monday, Wednesday and Friday', 'Write the budget on Sunday'],
        transcript: 'AI: Hi Riley, this is your AI coach from Momentum Coach calling for your daily check-in.\nUser: Hi! Good timing.',
        endedReason: 'customer-ended-call',
        dialledAt: at(yesterday, 1),
        startedAt: at(yesterday, 9),
        endedAt: at(yesterday, 321),
      })
      .returning({ id: coachingCalls.id })
    completedCallId = completed!.id
    await db.insert(coachingCallEvents).values([
      { callId: completedCallId, userId: user.id, type: 'scheduled', at: at(yesterday, -60) },
      { callId: completedCallId, userId: user.id, type: 'dialled', at: at(yesterday, 1) },
      { callId: completedCallId, userId: user.id, type: 'ringing', at: at(yesterday, 4) },
      { callId: completedCallId, userId: user.id, type: 'answered', at: at(yesterday, 9) },
      { callId: completedCallId, userId: user.id, type: 'report', at: at(yesterday, 330) },
      { callId: completedCallId, userId: user.id, type: 'ended', at: at(yesterday, 321), detail: { endedReason: 'customer-ended-call' } },
    ])

    const morning = dayStart(today)
    const [missed] = await db
      .insert(coachingCalls)
      .values({
        userId: user.id,
        callDate: morning,
        slot: 'daily',
        kind: 'check_in',
        localDate: today,
        timeZone: NEW_YORK,
        completionStatus: 'no_answer',
        endedReason: 'customer-did-not-answer',
        dialledAt: at(morning, 1),
        endedAt: at(morning, 31),
      })
      .returning({ id: coachingCalls.id })
    missedCallId = missed!.id
    await db.insert(coachingCallEvents).values([
      { callId: missedCallId, userId: user.id, type: 'scheduled', at: at(morning, -60) },
      { callId: missedCallId, userId: user.id, type: 'dialled', at: at(morning, 1) },
      { callId: missedCallId, userId: user.id, type: 'ringing', at: at(morning, 3) },
      { callId: missedCallId, userId: user.id, type: 'ended', at: at(morning, 31), detail: { endedReason: 'customer-did-not-answer' } },
      { callId: missedCallId, userId: user.id, type: 'retry_scheduled', at: at(morning, 32), detail: { retryAt: at(morning, 631).toISOString(), attempt: 1 } },
    ])

    sessionToken = (await createSession(db, systemClock, user.id)).token
  } finally {
    await database.close()
  }
}

async function signIn(context: BrowserContext) {
  await context.addCookies([{ name: 'session', value: sessionToken, url: base, httpOnly: true, sameSite: 'Lax' }])
}

const WEBHOOK_SECRET = 'e2e-calls-webhook-secret-0123456789abcdef'

test.describe('coaching calls: next call, call detail, schedule', () => {
  test.describe.configure({ mode: 'serial', timeout: 90_000 })

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-calls-'))
    await seed()
    fake = await FakeVapi.start()
    // What `npm run vapi:setup` leaves in the account: the webhook credential the calls reference.
    await createWebhookCredential(fake, WEBHOOK_SECRET)
    server = await startAppServer(
      {
        VAPI_API_KEY: fake.apiKey,
        VAPI_ASSISTANT_ID: 'asst_e2e_calls',
        VAPI_PHONE_NUMBER_ID: 'phone_e2e_calls',
        VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
        VAPI_API_URL: fake.url,
      },
      { dataDir },
    )
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('the dashboard shows the next call, all completed calls, and the recent calls that open their detail', async ({ page, context }) => {
    await signIn(context)
    await page.goto(`${base}/dashboard`)
    const card = page.getByRole('region', { name: 'Next call' })
    await expect(card.getByTestId('next-call-when')).toHaveText(expectedNextCall(NEW_YORK, 'Eastern', [firstTime.minutes, 19 * 60]))
    await expect(page.getByRole('group', { name: 'Calls Completed', exact: true })).toHaveText(/^Calls Completed\s*1$/)

    const calls = page.getByRole('region', { name: 'Recent Coaching Calls' })
    await expect(calls.getByTestId('call-row')).toHaveCount(2)
    await expect(calls.getByText('Riley planned three morning runs and a first monthly budget.')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    await calls.getByRole('link', { name: /Daily check-in, view details/ }).nth(1).click()
    await expect(page).toHaveURL(`${base}/calls/${completedCallId}`)
    await expect(page.getByRole('heading', { level: 1, name: 'Daily check-in' })).toBeVisible()
    await expect(page.getByTestId('call-status')).toHaveText('completed')
    await expect(page.getByTestId('call-timeline').getByRole('listitem')).toHaveText([
      /^Scheduled/,
      /^Dialled/,
      /^Ringing/,
      /^Answered/,
      /^Ended: you hung up/,
      /^Summary received/,
    ])
    await expect(page.getByRole('region', { name: 'Summary' })).toContainText('Riley planned three morning runs')
    await expect(page.getByRole('region', { name: 'Areas discussed' }).getByRole('listitem')).toHaveText(['Fitness & Health', 'Finance'])
    await expect(page.getByRole('region', { name: 'Commitments' }).getByRole('listitem')).toHaveText([
      'Run on Monday, Wednesday and Friday',
      'Write the budget on Sunday',
    ])
    await expect(page.getByText('5 min 12 s')).toBeVisible()
    await expect(page.getByText('7/10')).toBeVisible()
    await expect(page.getByTestId('call-transcript')).toContainText('User: Hi! Good timing.')
    expect(await seriousA11yViolations(page)).toEqual([])

    // The missed call: how it ended in words, and the retry.
    await page.goto(`${base}/calls/${missedCallId}`)
    await expect(page.getByTestId('call-status')).toHaveText('no answer')
    await expect(page.getByText('Ended: No answer.', { exact: true })).toBeVisible()
    await expect(page.getByTestId('call-timeline').getByRole('listitem').last()).toContainText(/^Retry scheduled at \d{1,2}:\d{2} (AM|PM)/)

    // Someone else's call, or no call at all.
    await page.goto(`${base}/calls/00000000-0000-4000-8000-000000000000`)
    await expect(page.getByRole('heading', { level: 1, name: 'Call Not Found' })).toBeVisible()
  })

  test('changing the schedule moves the next call and the goal intake\'s call time; pause, resume, calls off and on', async ({ page, context }) => {
    await signIn(context)
    await page.goto(`${base}/dashboard`)
    await page.getByRole('link', { name: 'Call schedule' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Call Schedule' })).toBeVisible()
    await expect(page.getByLabel('Call time', { exact: true })).toHaveText(firstTime.time)
    await expect(page.getByLabel('Time zone', { exact: true })).toHaveText('Eastern (ET)')
    // Premium: the evening check-in, at 7:00 PM until chosen.
    await expect(page.getByLabel('Evening check-in time', { exact: true })).toHaveText('7:00')
    await expect(page.getByLabel('Evening AM/PM', { exact: true })).toHaveText('PM')
    expect(await seriousA11yViolations(page)).toEqual([])

    const CHICAGO = 'America/Chicago'
    const next = halfHourAhead(CHICAGO, 3)
    await chooseOption(page, 'Call time', next.time)
    await chooseOption(page, 'AM/PM', next.period)
    await chooseOption(page, 'Time zone', 'Central (CT)')
    await chooseOption(page, 'Evening check-in time', '8:30')
    await page.getByRole('button', { name: 'Save call times' }).click()
    await expect(toast(page, 'Call schedule saved')).toBeVisible()

    const goals = await page.request.get(`${base}/api/goals`)
    const specific = (await goals.json()).goals.find((record: { lifeArea: string }) => record.lifeArea === 'specific_goals')
    expect(specific.specificGoals).toMatchObject({ preferred_call_time: `${next.time} ${next.period} Central (CT)`, goal_90_days: 'Run a 5k' })

    await page.getByRole('link', { name: 'Back to Dashboard' }).click()
    const when = page.getByRole('region', { name: 'Next call' }).getByTestId('next-call-when')
    await expect(when).toHaveText(expectedNextCall(CHICAGO, 'Central', [next.minutes, 20 * 60 + 30]))

    // Pause until a date, then resume.
    await page.goto(`${base}/calls/schedule`)
    const resumeOn = addDays(localNow(CHICAGO).date, 10)
    await page.getByLabel('Resume calls on').fill(resumeOn)
    await page.getByRole('button', { name: 'Pause calls' }).click()
    await expect(toast(page, 'Calls paused')).toBeVisible()
    await expect(page.getByTestId('paused-until')).toContainText('Calls are paused. They resume on')
    await page.goto(`${base}/dashboard`)
    await expect(page.getByRole('region', { name: 'Next call' })).toContainText('Calls are paused until')
    await page.goto(`${base}/calls/schedule`)
    await page.getByRole('button', { name: 'Resume calls now' }).click()
    await expect(page.getByLabel('Resume calls on')).toBeVisible()

    // Calls off with the keyboard (Space on the switch), then on again.
    const onOff = page.getByRole('switch', { name: 'Daily coaching calls' })
    await expect(onOff).toBeChecked()
    await onOff.focus()
    await page.keyboard.press('Space')
    await expect(toast(page, 'Calls turned off')).toBeVisible()
    await expect(onOff).not.toBeChecked()
    await page.goto(`${base}/dashboard`)
    await expect(when).toHaveText('Calls are turned off')
    await page.goto(`${base}/calls/schedule`)
    await page.getByRole('switch', { name: 'Daily coaching calls' }).click()
    await expect(page.getByRole('switch', { name: 'Daily coaching calls' })).toBeChecked()
    await expect(toast(page, 'Calls turned on')).toBeVisible()

    // "Call me now": the test call is placed (with the fake Vapi).
    await page.getByRole('button', { name: 'Call me now' }).click()
    await expect(toast(page, 'Calling you now')).toBeVisible()
    await expect.poll(() => fake.requestsTo('POST', '/call').length).toBe(1)
    await closeToasts(page)
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
