import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { signInAsStaff, startStaffServer, type StaffServer } from './support/staff'
import { signUpViaApi } from './support/users'

/**
 * Elite's human coach in Chromium (docs/decisions/078), on a server of this spec's own whose
 * database got its coaches from `npm run staff:add`: an Elite member meets their coach on the
 * dashboard; the coach, signed in with two-factor sign-in, finds them in the workspace, reads their
 * file and keeps a private note, and edits the profile the member sees; a coach without two-factor
 * sign-in is sent to set it up before the workspace shows.
 */

let server: StaffServer

test.describe('the coach', () => {
  test.describe.configure({ mode: 'default', timeout: 120_000 })

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    server = await startStaffServer([
      { email: uniqueEmail('coach'), fullName: 'Dana Lee', roles: ['coach'] },
      { email: uniqueEmail('coach2'), fullName: 'Kai Moss', roles: ['coach'] },
    ])
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('an Elite member meets their coach on the dashboard; the coach reads their file, keeps a note and edits the profile the member sees', async ({ page, browser }) => {
    // The coach first, so their profile says what the member reads.
    const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.8.1' } })
    const coachPage = await coachContext.newPage()
    await signInAsStaff(coachPage, server, server.staff[0]!)
    await coachPage.goto(`${server.baseUrl}/coach`)
    await expect(coachPage.getByRole('heading', { level: 1, name: 'Coach workspace' })).toBeVisible()
    const profile = coachPage.getByRole('region', { name: 'Your profile' })
    await profile.getByLabel('Bio').fill('Former marathoner. I help busy people keep small promises.')
    await profile.getByLabel('Reply within (business hours)').fill('6')
    await profile.getByRole('button', { name: 'Save profile' }).click()
    await expect(coachPage.getByText('Dana usually replies within 6 business hours.').first()).toBeVisible()

    const member = await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Eli Elite', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    const card = page.getByRole('region', { name: 'Your coach' })
    await expect(card).toBeVisible()
    // Both coaches have every place free and no member: the longer-standing one (Dana, added first) takes them.
    await expect(card.getByText('Dana Lee', { exact: true })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await expect(card).toContainText('Former marathoner')
    await expect(card).toContainText('Dana usually replies within 6 business hours.')

    await coachPage.reload()
    const members = coachPage.getByRole('list', { name: 'Your members' })
    await members.getByRole('link', { name: /Eli Elite/ }).click()
    await expect(coachPage.getByRole('heading', { level: 2, name: 'Eli Elite' })).toBeVisible()
    await expect(coachPage.getByRole('region', { name: 'Goals and scores' })).toBeVisible()
    expect(await seriousA11yViolations(coachPage)).toEqual([])
    const notes = coachPage.getByRole('region', { name: 'Private notes' })
    await notes.getByLabel('New note').fill('Wants to run a 10k in the spring.')
    await notes.getByRole('button', { name: 'Save note' }).click()
    await expect(notes.getByRole('list', { name: 'Your notes' })).toContainText('Wants to run a 10k in the spring.')
    await coachContext.close()

    // The member sees the read and the note on their account page, never the note itself.
    await page.goto(`${server.baseUrl}/account`)
    const activity = page.getByRole('region', { name: 'Account activity' })
    await expect(activity).toContainText('Dana Lee (coach) read your goals, calls, commitments and reports.')
    await expect(activity).toContainText('Dana Lee (coach) added a private note to your file.')
    await expect(page.getByText('Wants to run a 10k')).toHaveCount(0)
    expect(member.email).toContain('@')
  })

  test('a coach without two-factor sign-in is sent to set it up before the workspace shows', async ({ page }) => {
    await signInAsStaff(page, server, server.staff[1]!, { twoFactor: false })
    await page.goto(`${server.baseUrl}/coach`)
    await expect(page).toHaveURL(/\/account\?setup=two-factor&returnTo=%2Fcoach#two-factor$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Coach workspace' })).toHaveCount(0)
  })

  test('a member who opens the workspace finds no such page', async ({ page }) => {
    await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/coach`)
    await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
  })
})
