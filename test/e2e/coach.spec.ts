import sharp from 'sharp'
import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { signInAgain, signInAsStaff, startStaffServer, type SignedInStaff, type StaffServer } from './support/staff'
import { signUpViaApi } from './support/users'

/**
 * Elite's human coach in Chromium (docs/decisions/078), on a server of this spec's own whose
 * database got its coaches from `npm run staff:add`: an Elite member meets their coach on the
 * dashboard; the coach, signed in with two-factor sign-in, finds them in the workspace, reads their
 * file and keeps a private note, and edits the profile and photo (docs/decisions/080) the member
 * sees; a coach without two-factor sign-in is sent to set it up before the workspace shows.
 */

let server: StaffServer
let dana: SignedInStaff | undefined

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

  test('an Elite member meets their coach on the dashboard; the coach reads their file, keeps a note and edits the profile and photo the member sees', async ({ page, browser }) => {
    // The coach first, so their profile says what the member reads.
    const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.8.1' } })
    const coachPage = await coachContext.newPage()
    dana = await signInAsStaff(coachPage, server, server.staff[0]!)
    await coachPage.goto(`${server.baseUrl}/coach`)
    await expect(coachPage.getByRole('heading', { level: 1, name: 'Coach workspace' })).toBeVisible()
    const profile = coachPage.getByRole('region', { name: 'Your profile' })
    await profile.getByLabel('Bio').fill('Former marathoner. I help busy people keep small promises.')
    await profile.getByLabel('Reply within (business hours)').fill('6')
    await profile.getByRole('button', { name: 'Save profile' }).click()
    await expect(coachPage.getByText('Dana usually replies within 6 business hours.').first()).toBeVisible()
    // The photo: a file that is not an image is refused under the field; a PNG is shown at once.
    const photoField = profile.getByLabel('Profile photo')
    await photoField.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Not a photo') })
    await expect(profile.getByText('Choose a JPEG, PNG or WebP image.')).toBeVisible()
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#2f6f4f' } }).png().toBuffer()
    await photoField.setInputFiles({ name: 'dana.png', mimeType: 'image/png', buffer: png })
    await expect(profile.getByRole('img', { name: 'Dana Lee' })).toBeVisible()
    await expect(profile.getByRole('button', { name: 'Remove photo' })).toBeVisible()

    const member = await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Eli Elite', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    const card = page.getByRole('region', { name: 'Your coach' })
    await expect(card).toBeVisible()
    // Both coaches have every place free and no member: the longer-standing one (Dana, added first) takes them.
    await expect(card.getByText('Dana Lee', { exact: true })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await expect(card).toContainText('Former marathoner')
    await expect(card).toContainText('Dana usually replies within 6 business hours.')
    // The coach's photo, as the server drew it: a 512-pixel square.
    const photo = card.locator('img[alt="Dana Lee"]')
    await expect(photo).toBeVisible()
    await expect.poll(() => photo.evaluate((image: HTMLImageElement) => [image.naturalWidth, image.naturalHeight])).toEqual([512, 512])

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

  test('an Elite member and their coach exchange messages live, with read receipts', async ({ page, browser }) => {
    const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.8.3' } })
    const coachPage = await coachContext.newPage()
    // Dana's second sign-in when the first test followed the invitation (a recovery code), else her first.
    if (dana) await signInAgain(coachPage, server, dana)
    else dana = await signInAsStaff(coachPage, server, server.staff[0]!)

    const member = await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Mo Messages', logFile: server.logFile })
    await page.goto(`${server.baseUrl}/dashboard`)
    await page.getByRole('region', { name: 'Your coach' }).getByRole('link', { name: 'Message Dana' }).click()
    await expect(page).toHaveURL(`${server.baseUrl}/messages`)
    await expect(page.getByRole('heading', { level: 1, name: 'Messages with your coach' })).toBeVisible()
    await expect(page.getByText('No messages yet.')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    // The coach has the member's file open before anything is written.
    await coachPage.goto(`${server.baseUrl}/coach`)
    await coachPage.getByRole('list', { name: 'Your members' }).getByRole('link', { name: /Mo Messages/ }).click()
    const coachThread = coachPage.getByRole('region', { name: 'Messages', exact: true })
    await expect(coachThread.getByText('No messages yet.')).toBeVisible()

    // The member writes: it arrives on the coach's page without a reload.
    await page.getByLabel('Your message').fill('Can we move my call to 7 tomorrow?')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect(coachThread.getByRole('list', { name: 'Messages' })).toContainText('Can we move my call to 7 tomorrow?')

    // The coach replies: it arrives on the member's page, live.
    await coachThread.getByLabel('Reply to Mo Messages').fill('Sure, 7 AM it is.')
    await coachThread.getByRole('button', { name: 'Send', exact: true }).click()
    const memberThread = page.getByRole('list', { name: 'Messages' })
    await expect(memberThread).toContainText('Sure, 7 AM it is.')
    // The member's page read it: the coach sees "Read" under their reply.
    await expect(coachThread.getByText('Read', { exact: true })).toBeVisible()
    expect(await seriousA11yViolations(coachPage)).toEqual([])
    await coachContext.close()
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
