import AxeBuilder from '@axe-core/playwright'
import { request as playwrightRequest, type Page } from '@playwright/test'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'
import { waitForEmail } from './support/mail'
import { signUpViaApi } from './support/users'

/**
 * The coaching loop in the browser (issue 15): a member's call makes a commitment, which the
 * dashboard lists and the member marks done; at 6:00 PM on Sunday their weekly report is made,
 * emailed (with a one-click unsubscribe that works) and shown as a page with the week's figures
 * and charts. The server is the production app on a test clock with the Vapi fake on the same
 * clock (support/clocked-server.ts); nothing here waits for real time to pass.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/** Sunday 8 November 2026, 4:50 PM in New York (EST, UTC−5). */
const START = new Date('2026-11-08T21:50:00Z')
/** 5:00 PM: the member's call. */
const CALL_AT = new Date('2026-11-08T22:00:00Z')
/** 6:00 PM: the week ends and its report is due. */
const REPORT_AT = new Date('2026-11-08T23:00:00Z')

/** Goals whose three lowest areas are Finance, Family and Service; a call at 5:00 PM Eastern. */
const GOALS = {
  areas: {
    faith: { selectedOptions: [], satisfactionScore: 8, customNotes: '' },
    family: { selectedOptions: ['quality_time'], satisfactionScore: 3, customNotes: '' },
    fitness: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    finance: { selectedOptions: ['pay_off_debt'], satisfactionScore: 2, customNotes: '' },
    friends: { selectedOptions: [], satisfactionScore: 9, customNotes: '' },
    fun: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    service: { selectedOptions: [], satisfactionScore: 4, customNotes: '' },
    personal_development: { selectedOptions: [], satisfactionScore: 5, customNotes: '' },
  },
  workCareer: { company: null, industry: 'education', role: 'Teacher' },
  specificGoals: { goal90Days: 'Pay off the credit card', goal12Months: '', goal5Years: '', obstacles: '' },
  callTime: { time: '5:00', period: 'PM', timezone: 'eastern' },
}

test.use({ timezoneId: 'America/New_York', locale: 'en-US' })

test.describe('the coaching loop', () => {
  test.describe.configure({ timeout: 180_000 })

  let server: ClockedAppServer | undefined
  let base = ''

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    server = await startClockedAppServer({
      start: START,
      env: { VAPI_ASSISTANT_ID: 'asst_e2e_reports', VAPI_PHONE_NUMBER_ID: 'phone_e2e_reports', VAPI_WEBHOOK_SECRET: 'e2e-reports-webhook-secret-0123456789abcdef' },
    })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test("a call's commitment is marked done on the dashboard, and Sunday's report shows the week, by email and as a page", async ({ page }) => {
    const app = server!
    await page.clock.setFixedTime(await app.now())
    const member = await signUpViaApi(page, { paid: 'basic', fullName: 'Avery Brooks', origin: base, verified: true, logFile: app.logFile })
    const saved = await page.request.put(`${base}/api/goals`, { headers: { origin: base }, data: GOALS })
    expect(saved.status(), await saved.text()).toBe(200)

    // 5:00 PM: the coach calls; the member commits to a step (the fake's report).
    await app.advanceTo(new Date(CALL_AT.getTime() + 10 * 60_000))
    await page.clock.setFixedTime(await app.now())
    await page.goto(`${base}/dashboard`)
    const card = page.getByRole('region', { name: 'Your Commitments' })
    const rows = card.getByTestId('commitment-row')
    await expect(rows).toHaveCount(1)
    await expect(rows.first()).toContainText('Take one small step on Finance today')
    await expect(card.getByTestId('kept-rate')).toHaveText('—')
    await expect(card).toContainText('No commitments checked in the last 30 days')
    expect(await seriousA11yViolations(page)).toEqual([])

    // Marked done from the keyboard.
    const markDone = card.getByRole('button', { name: 'Mark done: Take one small step on Finance today' })
    await markDone.focus()
    await expect(markDone).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(rows).toHaveCount(0)
    await expect(card).toContainText('No open commitments.')
    await expect(card.getByTestId('kept-rate')).toHaveText('100%')
    await expect(card).toContainText('1 of 1 kept in the last 30 days')
    await page.reload()
    await expect(card.getByTestId('kept-rate')).toHaveText('100%')
    expect(await seriousA11yViolations(page)).toEqual([])

    // A minute before 6:00 PM there is no report; at 6:00 PM it is made and emailed.
    await app.advanceTo(new Date(REPORT_AT.getTime() - 60_000))
    expect((await (await page.request.get(`${base}/api/reports`)).json()) as unknown).toEqual({ reports: [] })
    await app.advanceTo(REPORT_AT)
    const mail = await waitForEmail(member.email, /^Your Momentum Coach week: Nov 2 – Nov 8, 2026$/)
    expect(mail.text).toContain('Calls: 1 completed, 0 missed, 3 minutes talked')
    expect(mail.text).toContain('Commitments: 1 kept, 0 missed, 1 made this week, 0 open')
    expect(mail.text).toContain(`See your full report: ${base}/reports/2026-11-08`)
    expect(mail.listUnsubscribePost).toBe('List-Unsubscribe=One-Click')
    const oneClick = /^<([^>]+)>$/.exec(mail.listUnsubscribe ?? '')?.[1]
    expect(oneClick).toMatch(new RegExp(`^${base}/api/reports/unsubscribe\\?token=`))

    // The history, then the week: its figures and its charts.
    await page.clock.setFixedTime(await app.now())
    await page.goto(`${base}/reports`)
    await expect(page.getByRole('heading', { level: 1, name: 'Weekly Reports' })).toBeVisible()
    await expect(page.getByTestId('report-row')).toHaveCount(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Nov 2 – Nov 8, 2026' }).click()
    await expect(page).toHaveURL(`${base}/reports/2026-11-08`)
    await expect(page.getByRole('heading', { level: 1, name: 'Your Week' })).toBeVisible()
    await expect(page.getByTestId('figure-calls-completed')).toHaveText(/^Calls completed\s*1$/)
    await expect(page.getByTestId('figure-calls-missed')).toHaveText(/^Calls missed\s*0$/)
    await expect(page.getByTestId('figure-minutes-talked')).toHaveText(/^Minutes talked\s*3$/)
    await expect(page.getByTestId('figure-commitments-kept')).toHaveText(/^Commitments kept\s*1\s*0 missed · 1 made · 0 open$/)
    const mood = page.getByRole('region', { name: 'Mood' })
    await expect(mood.getByTestId('mood-bar')).toHaveCount(1)
    await expect(mood.getByRole('list', { name: 'Mood by call, out of 10' })).toContainText('Sun, Nov 8: mood 7 out of 10')
    await expect(mood.getByTestId('mood-trend')).toHaveText('7 out of 10 on average')
    await expect(page.getByRole('region', { name: 'Life Areas Discussed' }).getByTestId('area-discussed')).toHaveText([/^Family Relationships\s*1 call$/, /^Finance\s*1 call$/, /^Service to Others\s*1 call$/])
    await expect(page.getByTestId('score-finance')).toHaveText(/^Finance\s*2\/10\s*—/)
    expect(await seriousA11yViolations(page)).toEqual([])

    // The email's one-click unsubscribe, as a mail provider posts it: no cookie, no page of ours.
    const provider = await playwrightRequest.newContext()
    const posted = await provider.post(oneClick!, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, data: 'List-Unsubscribe=One-Click' })
    expect(posted.status(), await posted.text()).toBe(200)
    expect(await posted.json()).toEqual({ unsubscribed: true, changed: true })
    await provider.dispose()

    // The email's visible link leads to the app's page, which asks first (clicking it again is harmless).
    const visible = /Unsubscribe from weekly report emails: (\S+)/.exec(mail.text)?.[1]
    expect(visible).toMatch(new RegExp(`^${base}/unsubscribe#token=`))
    await page.goto(visible!)
    await expect(page.getByRole('heading', { level: 1, name: 'Weekly Report Emails' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Unsubscribe from weekly report emails' }).click()
    await expect(page.getByRole('status')).toContainText("You're unsubscribed.")
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
