import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { linkIn, waitForEmail } from './support/mail'
import { signInAsStaff, startStaffServer, type StaffServer } from './support/staff'
import { keyOfSecret, nextCode } from './support/two-factor'
import { signUpViaApi } from './support/users'

/**
 * Staff in Chromium (docs/decisions/072), on a server of this spec's own whose database got its
 * staff from `npm run staff:add` before it started (startStaffServer): a new staff member follows
 * the emailed invitation, is sent to set up two-factor sign-in before the staff page shows, and is
 * brought back to it; a staff member signed in with two-factor sign-in sees their roles; a member
 * gets the not-found page.
 */

let server: StaffServer

test.describe('staff', () => {
  // One server for the file (its staff made before it started): its tests in one worker, in order.
  test.describe.configure({ mode: 'default', timeout: 90_000 })

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    server = await startStaffServer([
      { email: uniqueEmail('operator'), fullName: 'Dana Lee', roles: ['operator'] },
      { email: uniqueEmail('coach'), fullName: 'Sam Rivera', roles: ['coach', 'support'] },
      { email: uniqueEmail('admin'), fullName: 'Ada Admin', roles: ['admin'] },
    ])
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('a new staff member follows the invitation, sets up two-factor sign-in when the staff page asks, and comes back to it', async ({ page }) => {
    const dana = server.staff[0]!
    const link = linkIn(await waitForEmail(dana.email, /^You are invited to Momentum Coach$/))
    expect(link).toMatch(/^\/auth\?mode=invite#token=/)
    await page.goto(`${server.baseUrl}${link}`)
    await expect(page.getByRole('heading', { level: 1, name: 'Choose your password' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByLabel('New Password', { exact: true }).fill('cedar-lantern-harbor-62')
    await page.getByLabel('Confirm Password', { exact: true }).fill('cedar-lantern-harbor-62')
    await page.getByRole('button', { name: 'Save Password' }).click()

    // Signed in, a staff account without a plan goes to /staff, which asks for two-factor sign-in first.
    await expect(page).toHaveURL(`${server.baseUrl}/account?setup=two-factor&returnTo=%2Fstaff#two-factor`)
    const section = page.getByRole('region', { name: 'Two-factor sign-in' })
    await expect(section.getByText("Staff pages need two-factor sign-in. Set it up here, and you'll go back to the page you asked for.")).toBeVisible()
    await expect(section.getByRole('heading', { name: "Step 1 of 3: Confirm it's you" })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await section.getByLabel('Current Password', { exact: true }).fill('cedar-lantern-harbor-62')
    await section.getByRole('button', { name: 'Continue' }).click()
    const key = keyOfSecret((await section.getByTestId('two-factor-secret').textContent()) ?? '')
    await section.getByLabel('6-digit code').fill(nextCode(key))
    await section.getByRole('button', { name: 'Turn on', exact: true }).click()
    await expect(section.getByRole('heading', { name: 'Step 3 of 3: Save your recovery codes' })).toBeVisible()
    await section.getByRole('button', { name: "I've saved them: continue" }).click()

    await expect(page).toHaveURL(`${server.baseUrl}/staff`)
    await expect(page.getByRole('heading', { level: 1, name: 'Staff' })).toBeVisible()
    await expect(page.getByRole('list', { name: 'Your staff roles' })).toHaveText('operator')
    await expect(page.getByText(/10 recovery codes left\./)).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    // The account activity names who made the account and gave the role.
    await page.goto(`${server.baseUrl}/account`)
    const activity = page.getByRole('list', { name: 'Account activity' })
    await expect(activity).toContainText("An administrator (on the server's command line) gave you the operator role.")
    await expect(activity).toContainText('You turned on two-factor sign-in.')
  })

  test('signed in with two-factor sign-in (signInAsStaff), a staff member sees their roles; a member gets the not-found page', async ({ page, browser }) => {
    const sam = await signInAsStaff(page, server, server.staff[1]!)
    expect(sam.twoFactor?.recoveryCodes).toHaveLength(10)
    await page.goto(`${server.baseUrl}/staff`)
    await expect(page.getByRole('list', { name: 'Your staff roles' }).getByRole('listitem')).toHaveText(['coach', 'support'])

    const member = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.251.0.7' } })
    try {
      const memberPage = await member.newPage()
      await signUpViaApi(memberPage, { origin: server.baseUrl, paid: 'basic' })
      await memberPage.goto(`${server.baseUrl}/staff`)
      await expect(memberPage.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
      expect((await memberPage.request.get(`${server.baseUrl}/api/staff/me`)).status()).toBe(404)
    } finally {
      await member.close()
    }
  })

  test('an admin gives staff roles from the staff page: a new address is invited by email', async ({ page }) => {
    await signInAsStaff(page, server, server.staff[2]!)
    await page.goto(`${server.baseUrl}/staff`)
    const section = page.getByRole('region', { name: 'Staff accounts' })
    await expect(section.getByRole('list', { name: 'Staff accounts' })).toContainText('Sam Rivera')
    // Their own admin role cannot be taken away from here.
    await expect(section.getByRole('button', { name: 'Remove the administrator role from Ada Admin' })).toBeDisabled()
    expect(await seriousA11yViolations(page)).toEqual([])

    const newcomer = uniqueEmail('newcoach')
    await section.getByLabel('Email', { exact: true }).fill(newcomer)
    await section.getByLabel('Name (for a new account)').fill('Nia Newcomer')
    await section.getByRole('checkbox', { name: 'coach' }).check()
    await section.getByRole('button', { name: 'Give roles' }).click()
    await expect(page.getByText(`${newcomer} is invited by email to choose a password.`)).toBeVisible()
    await expect(section.getByRole('list', { name: 'Staff accounts' })).toContainText('Nia Newcomer')
    await waitForEmail(newcomer, /^You are invited to Momentum Coach$/)

    await section.getByRole('button', { name: 'Remove the coach role from Nia Newcomer' }).click()
    await expect(section.getByRole('list', { name: 'Staff accounts' })).not.toContainText('Nia Newcomer')
  })
})
