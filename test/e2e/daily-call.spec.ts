import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { VAPI_WEBHOOK_PATH } from '#common/webhooks'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'
import { waitForLoggedCode } from './support/server-log'
import { signUpViaApi } from './support/users'

/**
 * The daily call, end to end (issue 13): a paid member with goals is called by the coach at the
 * time they chose. The server is the production app on a test clock with the Vapi fake on the same
 * clock (support/clocked-server.ts): time there moves only when this spec says, and the browser's
 * clock is set to the server's, so "Today" and "Tomorrow" mean the same on both sides. Nothing
 * here waits for real time to pass.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/** Monday 15 June 2026, 9:00 AM in New York (EDT, UTC−4). */
const START = new Date('2026-06-15T13:00:00Z')
/** 10:00 AM in New York that day: the time the member chooses. */
const CALL_AT = new Date('2026-06-15T14:00:00Z')
const minutesAfter = (instant: Date, minutes: number) => new Date(instant.getTime() + minutes * 60_000)

const ASSISTANT_ID = 'asst_e2e_daily_call'
const PHONE_NUMBER_ID = 'phone_e2e_daily_call'

/** The member's goals as the intake saves them: their three lowest areas are Finance, Family and Service. */
const GOALS = {
  areas: {
    faith: { selectedOptions: ['daily_prayer'], satisfactionScore: 8, customNotes: '' },
    family: { selectedOptions: ['quality_time'], satisfactionScore: 3, customNotes: '' },
    fitness: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    finance: { selectedOptions: ['pay_off_debt'], satisfactionScore: 2, customNotes: 'Credit card first' },
    friends: { selectedOptions: [], satisfactionScore: 9, customNotes: '' },
    fun: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    service: { selectedOptions: ['paid_more'], satisfactionScore: 4, customNotes: '' },
    personal_development: { selectedOptions: ['read_more'], satisfactionScore: 5, customNotes: '' },
  },
  workCareer: { company: null, industry: 'education', role: 'Teacher' },
  specificGoals: { goal90Days: 'Pay off the credit card', goal12Months: 'Save three months of expenses', goal5Years: 'Buy a home', obstacles: 'Impulse spending' },
  callTime: { time: '10:00', period: 'AM', timezone: 'eastern' },
}

test.use({ timezoneId: 'America/New_York', locale: 'en-US' })

test.describe('the daily coaching call', () => {
  test.describe.configure({ timeout: 120_000 })

  let server: ClockedAppServer | undefined
  let base = ''

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    server = await startClockedAppServer({
      start: START,
      env: { VAPI_ASSISTANT_ID: ASSISTANT_ID, VAPI_PHONE_NUMBER_ID: PHONE_NUMBER_ID, VAPI_WEBHOOK_SECRET: 'e2e-daily-call-webhook-secret-0123456789abcdef' },
    })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  /** The browser reads the server's test clock (the Next call card says "Today" or "Tomorrow" from it). */
  async function matchBrowserClock(page: Page) {
    await page.clock.setFixedTime(await server!.now())
  }

  test('a paid member with goals is called at their time, and sees the call completed with its summary, areas and timeline', async ({ page }) => {
    const app = server!
    await matchBrowserClock(page)

    // A new member pays (testing mode) and completes the goal intake, choosing 10:00 AM Eastern.
    await signUpViaApi(page, { paid: 'basic', fullName: 'Avery Brooks', origin: base })
    const saved = await page.request.put(`${base}/api/goals`, { headers: { origin: base }, data: GOALS })
    expect(saved.status(), await saved.text()).toBe(200)
    const me = (await (await page.request.get(`${base}/api/me`)).json()) as { user: { id: string } }

    // 9:00 AM: nothing reaches a number nobody proved. The card says so and verifies it on the spot,
    // with the code this server (no Twilio) writes to its log.
    await page.goto(`${base}/dashboard`)
    const nextCall = page.getByRole('region', { name: 'Next call' })
    await expect(nextCall.getByTestId('next-call-when')).toHaveText('Verify your number')
    await nextCall.getByRole('button', { name: 'Verify your number' }).click()
    await expect(nextCall.getByTestId('verify-number')).toContainText("the 6-digit code for (202) 523-4567 was written to the server's log")
    expect(await seriousA11yViolations(page)).toEqual([])
    await nextCall.getByLabel('Verification Code').fill('000000')
    await nextCall.getByRole('button', { name: 'Verify number' }).click()
    await expect(nextCall.getByLabel('Verification Code')).toHaveAccessibleDescription(/That code is not right/)
    await nextCall.getByLabel('Verification Code').fill(await waitForLoggedCode(app.logFile, '2025234567'))
    await nextCall.getByRole('button', { name: 'Verify number' }).click()

    // Proven: the card says the coach calls today at 10:00, and there are no calls yet.
    await expect(nextCall.getByTestId('next-call-when')).toHaveText('Today, 10:00 AM Eastern')
    await expect(nextCall).toContainText('Daily check-in')
    const recentCalls = page.getByRole('region', { name: 'Recent Coaching Calls' })
    await expect(recentCalls).toContainText('No calls yet.')

    // One second before 10:00 nothing has been dialled; at 10:00 the fake receives the call.
    await app.advanceTo(new Date(CALL_AT.getTime() - 1000))
    expect(await app.vapiCalls()).toEqual([])
    await app.advanceTo(CALL_AT)
    const dials = await app.vapiCalls()
    expect(dials).toHaveLength(1)
    const dial = dials[0]!
    expect(dial.createdAt).toBe(CALL_AT.toISOString())
    expect(dial).toMatchObject({
      assistantId: ASSISTANT_ID,
      phoneNumberId: PHONE_NUMBER_ID,
      customer: { number: '+12025234567', name: 'Avery' },
    })
    const callId = String(dial.assistantOverrides?.metadata?.callId)
    expect(dial.name).toBe(`mc ${callId}`)
    expect(dial.assistantOverrides).toMatchObject({
      maxDurationSeconds: 300,
      metadata: { callId, userId: me.user.id, slot: 'daily', localDate: '2026-06-15', attempt: 0 },
      variableValues: {
        firstName: 'Avery',
        focusAreas: 'Finance, Family Relationships, Service to Others',
        goal90Days: 'Pay off the credit card',
        obstacles: 'Impulse spending',
        previousCallSummary: '',
        callKind: 'daily check-in',
        maxMinutes: '5',
        localDate: '2026-06-15',
        timezone: 'America/New_York',
      },
      server: { url: `${base}${VAPI_WEBHOOK_PATH}` },
    })

    // The member answers, talks with the coach and hangs up; the report follows.
    await app.advanceTo(minutesAfter(CALL_AT, 10))
    const [ended] = await app.vapiCalls()
    expect(ended).toMatchObject({ id: dial.id, status: 'ended', endedReason: 'customer-ended-call' })
    const summary = ended!.analysis?.summary
    expect(summary).toBe('Avery talked about Finance, Family, Service and committed to one step before the next call.')

    // 10:10 AM: the dashboard shows the call completed, with its summary and areas; the next one is tomorrow.
    await matchBrowserClock(page)
    await page.reload()
    await expect(nextCall.getByTestId('next-call-when')).toHaveText('Tomorrow, 10:00 AM Eastern')
    await expect(page.getByRole('group', { name: 'Calls Completed', exact: true })).toHaveText(/^Calls Completed\s*1$/)
    const row = recentCalls.getByTestId('call-row')
    await expect(row).toHaveCount(1)
    await expect(row).toContainText('Jun 15, 2026')
    await expect(row.getByText('completed', { exact: true })).toBeVisible()
    await expect(row.getByText(summary!, { exact: true })).toBeVisible()
    await expect(row.getByRole('list', { name: 'Areas discussed' }).getByRole('listitem')).toHaveText(['Finance', 'Family', 'Service'])
    expect(await seriousA11yViolations(page)).toEqual([])

    // The call's detail: its outcome, report and timeline from scheduled to the report.
    await row.getByRole('link', { name: /Daily check-in, view details/ }).click()
    await expect(page).toHaveURL(`${base}/calls/${callId}`)
    await expect(page.getByRole('heading', { level: 1, name: 'Daily check-in' })).toBeVisible()
    await expect(page.getByTestId('call-status')).toHaveText('completed')
    await expect(page.getByRole('region', { name: 'Summary' })).toContainText(summary!)
    await expect(page.getByRole('region', { name: 'Areas discussed' }).getByRole('listitem')).toHaveText(['Finance', 'Family Relationships', 'Service to Others'])
    await expect(page.getByRole('region', { name: 'Commitments' }).getByRole('listitem')).toHaveText(['Take one small step on Finance today'])
    await expect(page.getByText('2 min 30 s')).toBeVisible()
    // Each step at its instant on the test clock: dialled at 10:00, ringing a second later, answered
    // after six, ended after two and a half minutes of talk (the fake's script), then the report.
    await expect(page.getByTestId('call-timeline').getByRole('listitem')).toHaveText([
      /^Scheduled/,
      /^Dialled\s*10:00:00\sAM$/,
      /^Queued/,
      /^Ringing\s*10:00:01\sAM$/,
      /^Answered\s*10:00:06\sAM$/,
      /^Ended: you hung up\s*10:02:36\sAM$/,
      /^Summary received/,
    ])
    await expect(page.getByTestId('call-transcript')).toContainText('Hi Avery')
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
