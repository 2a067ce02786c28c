import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { signInAgain, signInAsStaff, startStaffServer, type SignedInStaff, type StaffServer } from './support/staff'
import { signUpViaApi } from './support/users'

/**
 * Elite's 1-on-1 sessions in Chromium (docs/decisions/082), on a server of this spec's own with one
 * coach: the member reads the rule, books a time from the coach's open times, moves it and cancels
 * it; the coach sees the booking in the workspace. A new member books their onboarding session and
 * the coach adjusts their 90-day goal, which the member sees on their account page.
 */

let server: StaffServer
let dana: SignedInStaff | undefined

test.describe('1-on-1 sessions', () => {
  test.describe.configure({ mode: 'default', timeout: 120_000 })

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    server = await startStaffServer([{ email: uniqueEmail('coach'), fullName: 'Dana Lee', roles: ['coach'] }])
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('an Elite member books, moves and cancels their session; the coach sees it in the workspace', async ({ page, browser }) => {
    // The coach signs in first (two-factor sign-in on), so the member is given her.
    const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.9.1' } })
    const coachPage = await coachContext.newPage()
    dana = await signInAsStaff(coachPage, server, server.staff[0]!)

    await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Bea Booker', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    // A new Elite member is offered their onboarding session on the dashboard.
    const card = page.getByRole('region', { name: 'Your coach' })
    await expect(card.getByText(/^Book your onboarding session: 45 minutes with Dana in your first week/)).toBeVisible()
    await card.getByRole('link', { name: 'Book onboarding' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Your 1-on-1 sessions' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Your onboarding session' }).getByRole('button', { name: 'Book your onboarding session' })).toBeVisible()
    await expect(page.getByText(/One 45-minute session a month\. Move or cancel it up to 24 hours before/)).toBeVisible()

    // Book: a day, a time, held while the member confirms.
    await page.getByRole('button', { name: 'Book a session' }).click()
    const picker = page.getByRole('region', { name: 'Choose a time' })
    await expect(picker.getByText(/Dana works in America\/New_York/)).toBeVisible()
    const firstTime = picker.getByRole('group', { name: /^Times on / }).getByRole('button').first()
    const chosen = (await firstTime.getAttribute('aria-label'))!
    await firstTime.click()
    await expect(picker.getByRole('status')).toContainText('is held for you until')
    expect(await seriousA11yViolations(page)).toEqual([])
    await picker.getByRole('button', { name: 'Confirm booking' }).click()
    const upcoming = page.getByRole('region', { name: 'Upcoming' })
    const [day, time] = chosen.split(' at ') as [string, string]
    await expect(upcoming.getByRole('listitem')).toContainText(`1-on-1 session with Dana Lee: ${day} at ${time}`)
    await expect(page.getByRole('button', { name: 'Book a session' })).toHaveCount(0)

    // The coach sees it in the workspace.
    await coachPage.goto(`${server.baseUrl}/coach`)
    await expect(coachPage.getByRole('region', { name: '1-on-1 sessions' }).getByRole('listitem')).toContainText('1-on-1 with Bea Booker')
    await expect(coachPage.getByRole('region', { name: 'Session hours' }).getByRole('button', { name: 'Save session hours' })).toBeVisible()
    expect(await seriousA11yViolations(coachPage)).toEqual([])
    await coachContext.close()

    // Move it to the last open time of that day.
    await upcoming.getByRole('button', { name: 'Move' }).click()
    const moving = page.getByRole('region', { name: 'Choose a new time' })
    const lastTime = moving.getByRole('group', { name: /^Times on / }).getByRole('button').last()
    const newTime = (await lastTime.getAttribute('aria-label'))!.split(' at ')[1]!
    await lastTime.click()
    await moving.getByRole('button', { name: 'Confirm the new time' }).click()
    await expect(upcoming.getByRole('listitem')).toContainText(`at ${newTime}`)

    // Cancel it (more than 24 hours ahead): the month's session is given back.
    await upcoming.getByRole('button', { name: 'Cancel session' }).click()
    await expect(upcoming.getByText('Cancel this session? You can book another this month.')).toBeVisible()
    await upcoming.getByRole('button', { name: 'Yes, cancel it' }).click()
    await expect(upcoming.getByText('No session booked.')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Book a session' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Past sessions' })).toContainText('Cancelled')
  })

  test('a new Elite member books their onboarding session, and the coach adjusts their 90-day goal', async ({ page, browser }) => {
    const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.9.2' } })
    const coachPage = await coachContext.newPage()
    if (dana) await signInAgain(coachPage, server, dana)
    else dana = await signInAsStaff(coachPage, server, server.staff[0]!)

    await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Otto Onboard', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    await page.getByRole('region', { name: 'Your coach' }).getByRole('link', { name: 'Book onboarding' }).click()
    await page.getByRole('region', { name: 'Your onboarding session' }).getByRole('button', { name: 'Book your onboarding session' }).click()
    const picker = page.getByRole('region', { name: 'Choose a time for your onboarding session' })
    await picker.getByRole('group', { name: /^Times on / }).getByRole('button').first().click()
    await picker.getByRole('button', { name: 'Confirm booking' }).click()
    await expect(page.getByRole('region', { name: 'Upcoming' }).getByRole('listitem')).toContainText('Onboarding session with Dana Lee')
    await expect(page.getByRole('region', { name: 'Your onboarding session' })).toHaveCount(0)

    // The coach sees the onboarding session, opens the member's file and sets their 90-day goal.
    await coachPage.goto(`${server.baseUrl}/coach`)
    await expect(coachPage.getByRole('region', { name: '1-on-1 sessions' })).toContainText('Onboarding with Otto Onboard')
    await coachPage.getByRole('list', { name: 'Your members' }).getByRole('link', { name: /Otto Onboard/ }).click()
    const plan = coachPage.getByRole('region', { name: 'Adjust their plan' })
    await plan.getByLabel('90-day goal').fill('Walk 8,000 steps a day by March')
    await plan.getByRole('button', { name: 'Save their plan' }).click()
    await expect(coachPage.getByRole('region', { name: 'Goals and scores' })).toContainText('90-day goal: Walk 8,000 steps a day by March')
    expect(await seriousA11yViolations(coachPage)).toEqual([])
    await coachContext.close()

    await page.goto(`${server.baseUrl}/account`)
    await expect(page.getByRole('region', { name: 'Account activity' })).toContainText('Dana Lee (coach) updated your 90-day goal.')
  })
})
