import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from '@playwright/test'
import { eq } from 'drizzle-orm'
import { CHAT_TEXT } from '#common/chat'
import { USAGE_TEXT } from '#common/usage'
import { createSession } from '#server/auth/session'
import { openDatabase, type Db } from '#server/db/client'
import { coachingCalls, profiles, subscribers, usageDays, usageVoiceCalls } from '#server/db/schema'
import { insertUser } from '../helpers/factories'
import { seriousA11yViolations } from './support/a11y'
import { fakeMicrophone, wavFile } from './support/chromium'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'

/**
 * The plan's in-app budget (docs/decisions/061) in Chromium: the account page shows what is left
 * this month of the voice minutes and the messages, and when they come back; a message or a voice
 * call refused because the month's are used up shows its own toast (never 'Voice Error'); a call
 * the budget ends says so in 'Call Ended'. The server is the production app on a test clock
 * (Monday 15 June 2026, 10:00 AM in New York) with the Vapi fake in its process, over a DATA_DIR
 * this spec seeds before it starts.
 */

const START = new Date('2026-06-15T14:00:00Z')
const NEW_YORK = 'America/New_York'

/** A fake microphone (Chromium loops it): a short buzz, then silence, 16-bit mono at 48 kHz. */
function microphoneWav(): string {
  const rate = 48_000
  const data = Buffer.alloc(rate * 2 * 2)
  for (let i = 0; i < rate / 2; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / rate) * 6000), i * 2)
  return wavFile(data, rate)
}

test.use({
  ...fakeMicrophone(microphoneWav()),
  timezoneId: NEW_YORK,
  locale: 'en-US',
})

let dataDir = ''
let server: ClockedAppServer | undefined
let base = ''
const tokens = { riley: '', sam: '', kim: '' }
const ids = { riley: '', sam: '', kim: '' }

/** A Basic member past the free trial, in New York. */
async function member(db: Db, fullName: string) {
  const user = await insertUser(db, { fullName, emailConfirmedAt: START })
  await db.insert(subscribers).values({ userId: user.id, subscribed: true, tier: 'basic', status: 'active', source: 'testing', trialEnd: new Date(START.getTime() - 30 * 86_400_000) })
  await db.update(profiles).set({ onboardingCompleted: true, timezone: NEW_YORK }).where(eq(profiles.id, user.id))
  return user
}

/** A voice call in the app earlier this month that counted `seconds`. */
async function voiceUsed(db: Db, userId: string, localDate: string, seconds: number) {
  const [call] = await db.insert(coachingCalls).values({ userId, callDate: new Date(`${localDate}T15:00:00Z`), slot: 'web', kind: 'web', completionStatus: 'completed', callDuration: seconds, timeZone: NEW_YORK }).returning()
  await db.insert(usageVoiceCalls).values({ callId: call!.id, userId, localDate, seconds, updatedAt: START })
}

async function seed() {
  const database = await openDatabase({ dataDir })
  try {
    await database.migrate()
    const { db } = database
    const clock = { now: () => START }
    // Riley: 12 of Basic's 60 minutes and 40 of its 300 messages used this month (and some in May, which do not count).
    const riley = await member(db, 'Riley Chen')
    await voiceUsed(db, riley.id, '2026-06-02', 12 * 60)
    await voiceUsed(db, riley.id, '2026-05-28', 30 * 60)
    await db.insert(usageDays).values([
      { userId: riley.id, localDate: '2026-06-03', chatTurns: 40, updatedAt: START },
      { userId: riley.id, localDate: '2026-05-30', chatTurns: 90, updatedAt: START },
    ])
    // Sam: the month's minutes and messages are used up.
    const sam = await member(db, 'Sam Ortiz')
    await voiceUsed(db, sam.id, '2026-06-01', 60 * 60)
    await db.insert(usageDays).values({ userId: sam.id, localDate: '2026-06-01', chatTurns: 300, updatedAt: START })
    // Kim: 50 seconds of voice left this month.
    const kim = await member(db, 'Kim Park')
    await voiceUsed(db, kim.id, '2026-06-05', 60 * 60 - 50)
    for (const [who, user] of [['riley', riley], ['sam', sam], ['kim', kim]] as const) {
      tokens[who] = (await createSession(db, clock, user.id)).token
      ids[who] = user.id
    }
  } finally {
    await database.close()
  }
}

async function signIn(context: BrowserContext, who: keyof typeof tokens) {
  await context.addCookies([{ name: 'session', value: tokens[who], url: base, httpOnly: true, sameSite: 'Lax' }])
}

const toastWith = (page: Page, title: string, description?: string) => {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: title })
  return description ? toast.filter({ hasText: description }) : toast
}

test.describe("the plan's budget in the app", () => {
  // One clocked server for the three (each worker would start its own).
  test.describe.configure({ mode: 'serial', timeout: 90_000 })

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-usage-'))
    await seed()
    server = await startClockedAppServer({ start: START, dataDir, env: { VAPI_ASSISTANT_ID: 'asst_e2e_usage' } })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('the account page shows what is left this month, and when it comes back', async ({ page, context }) => {
    await signIn(context, 'riley')
    await page.goto(`${base}/account`)
    const section = page.getByRole('region', { name: 'This month in the app' })
    await expect(section).toBeVisible()
    await expect(section.getByText('48 minutes left')).toBeVisible()
    await expect(section.getByText('(12 of 60 used)')).toBeVisible()
    await expect(section.getByText('260 messages left')).toBeVisible()
    await expect(section.getByText('(40 of 300 used)')).toBeVisible()
    await expect(section.getByText('They come back on July 1.')).toBeVisible()
    await expect(section.getByText(/Each day you can use up to 30 voice minutes and send up to 100 messages/)).toBeVisible()
    await expect(section.getByRole('progressbar', { name: 'Voice minutes' })).toHaveAttribute('aria-valuetext', '12 of 60 used')
    await expect(section.getByRole('progressbar', { name: 'Messages to your coach' })).toHaveAttribute('aria-valuetext', '40 of 300 used')
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test("a message and a voice call refused for the month's budget each show their own toast, never 'Voice Error'", async ({ page, context }) => {
    await signIn(context, 'sam')
    await page.goto(`${base}/account`)
    const section = page.getByRole('region', { name: 'This month in the app' })
    await expect(section.getByText('0 minutes left')).toBeVisible()
    await expect(section.getByText('0 messages left')).toBeVisible()

    await page.goto(`${base}/chat`)
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('One more question')
    await box.press('Enter')
    await expect(toastWith(page, USAGE_TEXT.chatLimitTitle, "You've used this month's 300 messages to your coach. They come back on July 1.")).toBeVisible()

    await page.getByRole('button', { name: CHAT_TEXT.startVoiceCall }).click()
    await expect(toastWith(page, USAGE_TEXT.voiceLimitTitle, "You've used this month's 60 voice minutes. They come back on July 1.")).toBeVisible()
    await expect(page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })).toBeEnabled()
    await expect(toastWith(page, 'Voice Error')).toHaveCount(0)
    // Nothing was asked of Vapi for Sam.
    expect((await server!.vapiCalls()).filter((call) => call.assistantOverrides?.metadata?.userId === ids.sam)).toEqual([])
  })

  test("a voice call the month's last minutes end says so in 'Call Ended'", async ({ page, context }) => {
    await signIn(context, 'kim')
    await page.goto(`${base}/chat`)
    await page.getByRole('button', { name: CHAT_TEXT.startVoiceCall }).click()
    await expect(toastWith(page, 'Voice Active')).toBeVisible()
    // The server's clock moves past the 50 seconds left: the call ends for the budget.
    await server!.advanceTo(new Date(START.getTime() + 50_000))
    await expect(toastWith(page, 'Call Ended', USAGE_TEXT.callEndedMonthly)).toBeVisible()
    await expect(page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })).toBeEnabled()
    const [call] = (await server!.vapiCalls()).filter((call) => call.assistantOverrides?.metadata?.userId === ids.kim)
    expect(call?.assistantOverrides?.maxDurationSeconds).toBe(50)
  })
})
