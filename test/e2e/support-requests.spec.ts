import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { waitForEmail } from './support/mail'
import { signInAsStaff, startStaffServer, type StaffServer } from './support/staff'
import { signUpViaApi } from './support/users'

/**
 * Priority support in Chromium (docs/decisions/077), on a server of this spec's own whose database
 * got a support agent from `npm run staff:add` before it started: a Basic member asks for help from
 * the navigation's Help page; the agent, signed in with two-factor sign-in, finds the request in
 * the inbox, adds an internal note and replies; the member gets the reply by email and reads it in
 * the app, never the note. A member who opens the inbox finds no such page.
 */

let server: StaffServer

test.describe('support requests', () => {
  // One server for the file (its staff made before it started): its tests in one worker, in order.
  test.describe.configure({ mode: 'default', timeout: 120_000 })

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    server = await startStaffServer([{ email: uniqueEmail('support'), fullName: 'Sam Rivera', roles: ['support'] }])
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('a Basic member asks for help, support replies from the inbox, and the member reads the reply by email and in the app', async ({ page, browser }) => {
    const member = await signUpViaApi(page, { origin: server.baseUrl, paid: 'basic', fullName: 'Bea Basic', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Help', exact: true }).click()
    await expect(page).toHaveURL(`${server.baseUrl}/help`)
    await expect(page.getByRole('heading', { level: 1, name: 'Help' })).toBeVisible()
    await expect(page.getByText('We reply within two business days.')).toBeVisible()
    await expect(page.getByText('You have not asked us anything yet.')).toBeVisible()

    const form = page.getByRole('region', { name: 'Ask for help' })
    // Nothing chosen: the topic is asked for, and focused.
    await form.getByLabel('Your message').fill('My morning call did not come today.')
    await form.getByRole('button', { name: 'Send to support' }).click()
    await expect(form.getByText('Choose what your question is about.')).toBeVisible()
    await expect(form.getByLabel('What is it about?')).toBeFocused()
    await form.getByLabel('What is it about?').selectOption({ label: 'Coaching calls' })
    expect(await seriousA11yViolations(page)).toEqual([])
    await form.getByRole('button', { name: 'Send to support' }).click()

    await expect(page).toHaveURL(/\/help\/[0-9a-f-]{36}$/)
    const heading = page.getByRole('heading', { level: 1, name: /^Request #[0-9A-F]{6}$/ })
    await expect(heading).toBeVisible()
    const reference = ((await heading.textContent()) ?? '').replace('Request ', '')
    await expect(page.getByRole('list', { name: 'Messages' }).getByRole('listitem')).toHaveCount(1)
    const requestUrl = page.url()

    // The agent, in a browser of their own.
    const agentContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.9.1' } })
    const agentPage = await agentContext.newPage()
    await signInAsStaff(agentPage, server, server.staff[0]!)
    await agentPage.goto(`${server.baseUrl}/support`)
    await expect(agentPage.getByRole('heading', { level: 1, name: 'Support inbox' })).toBeVisible()
    const entry = agentPage.getByRole('list', { name: 'Support requests' }).getByRole('link').filter({ hasText: reference })
    await expect(entry).toContainText('Bea Basic')
    await expect(entry).toContainText('Basic')
    await entry.click()
    await expect(agentPage.getByRole('heading', { level: 2, name: `${reference}: Coaching calls` })).toBeVisible()
    const memberCard = agentPage.getByRole('region', { name: 'Member', exact: true })
    await expect(memberCard).toContainText(member.email)
    await expect(memberCard).toContainText('Basic')
    expect(await seriousA11yViolations(agentPage)).toEqual([])

    const note = agentPage.getByRole('region', { name: 'Internal note' })
    await note.getByLabel('Note').fill('Check the dialler log for 7 AM.')
    await note.getByRole('button', { name: 'Add note' }).click()
    await expect(agentPage.getByRole('list', { name: 'Messages and notes' })).toContainText('Internal note by Sam Rivera')

    const reply = agentPage.getByRole('region', { name: 'Reply to the member' })
    await reply.getByLabel('Reply').fill('Sorry about that! Your number was not verified yet.\n\nVerify it on your account page and calls will start.')
    await reply.getByRole('button', { name: 'Send reply' }).click()
    await expect(agentPage.getByText('Reply sent', { exact: true })).toBeVisible()
    await expect(agentPage.getByRole('list', { name: 'Messages and notes' })).toContainText('Sam Rivera replied')
    await agentContext.close()

    // The member: by email, and on the request's page (never the note).
    const mail = await waitForEmail(member.email, new RegExp(`^Re: your support request ${reference}$`))
    expect(mail.text).toContain('Sam from support replied')
    expect(mail.text).toContain('Verify it on your account page and calls will start.')
    expect(mail.text).not.toContain('dialler log')

    await page.goto(requestUrl)
    const messages = page.getByRole('list', { name: 'Messages' })
    await expect(messages.getByRole('listitem')).toHaveCount(2)
    await expect(messages).toContainText('Sam from support')
    await expect(messages).toContainText('Verify it on your account page and calls will start.')
    await expect(messages).not.toContainText('dialler log')
    await expect(page.getByText('Waiting for you')).toBeVisible()

    const answer = page.getByRole('region', { name: 'Add a message' })
    await answer.getByLabel('Your message').fill('Done, thank you!')
    await answer.getByRole('button', { name: 'Send', exact: true }).click()
    await expect(messages.getByRole('listitem')).toHaveCount(3)
    await expect(page.getByText('Open', { exact: true })).toBeVisible()

    await page.getByRole('link', { name: 'All your requests' }).click()
    await expect(page.getByRole('list', { name: 'Your support requests' })).toContainText(reference)
  })

  test('a member who opens the support inbox finds no such page', async ({ page }) => {
    await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/support`)
    await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Support inbox' })).toHaveCount(0)
  })
})
