import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { STRIPE_WEBHOOK_PATH } from '#common/webhooks'
import { startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test, uniqueEmail } from './support/fixtures'
import { confirmEmailViaApi, signUpViaApi } from './support/users'

/**
 * Courses in the browser (spec 2 §2, §4, §8): the catalogue, enrolling, a course's lessons, videos,
 * quizzes and progress, the missing course and the signed-out view. The server runs on the embedded
 * default with a fresh DATA_DIR, so its first start loaded the starter catalogue.
 */

const FREE = 'Getting Started with Momentum Coach'
const PREMIUM = 'Leading a Workplace Coaching Program'

/** A toast (sonner) by its title. */
function toast(page: Page, title: string): Locator {
  return page
    .getByRole('region', { name: /Notifications/ })
    .getByRole('listitem')
    .filter({ has: page.getByText(title, { exact: true }) })
}

/** Axe with the WCAG 2 A and AA rules; only the serious and critical violations. */
async function seriousA11yViolations(page: Page) {
  // The YouTube frame cannot load offline; it is a third party's page, not ours to check.
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).exclude('iframe').analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const available = (page: Page) => page.getByRole('list', { name: 'Available Courses' })
const myCourses = (page: Page) => page.getByRole('list', { name: 'My Courses' })
const progressCard = (page: Page) => page.getByRole('region', { name: 'Course Progress' })
const lessonList = (page: Page) => page.getByRole('navigation', { name: 'Lessons' })
const lessonPanel = (page: Page) => page.getByRole('article')

test.describe('course catalogue and lessons', () => {
  test('a signed-in user enrolls, takes a quiz, completes lessons and sees the progress everywhere', async ({ page }) => {
    await signUpViaApi(page, { confirmed: true })
    await page.goto('/courses')

    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()
    await expect(available(page).getByRole('group')).toHaveCount(4)
    // Nothing enrolled yet: no 'My Courses'.
    await expect(page.getByRole('heading', { name: 'My Courses' })).toHaveCount(0)

    const premium = available(page).getByRole('group', { name: PREMIUM })
    await expect(premium.getByText('Premium', { exact: true })).toBeVisible()
    await expect(premium.getByText('Business', { exact: true })).toBeVisible()
    await expect(premium).toContainText('$49')
    await expect(premium).toContainText('one-time')
    await expect(premium.getByRole('button', { name: 'Enroll - $49' })).toBeVisible()
    await expect(premium.locator('img')).toHaveAttribute('src', '/courses/workplace-program.svg')
    // The SVG thumbnail really loads (served from web/public/courses).
    await premium.locator('img').scrollIntoViewIfNeeded()
    await expect
      .poll(() =>
        premium.locator('img').evaluate((img) => {
          const image = img as unknown as { complete: boolean; naturalWidth: number }
          return image.complete && image.naturalWidth > 0
        }),
      )
      .toBe(true)

    const free = available(page).getByRole('group', { name: FREE })
    await expect(free.getByText('Product Training', { exact: true })).toBeVisible()
    await expect(free.getByText('Premium', { exact: true })).toHaveCount(0)
    expect(await seriousA11yViolations(page)).toEqual([])

    // Enroll in the free course.
    await free.getByRole('button', { name: 'Enroll Now' }).click()
    await expect(toast(page, 'Successfully enrolled in course!')).toBeVisible()
    await expect(page.getByRole('heading', { level: 2, name: 'My Courses' })).toBeVisible()
    const mine = myCourses(page).getByRole('group', { name: FREE })
    await expect(mine.getByRole('progressbar', { name: `${FREE} progress` })).toBeVisible()
    await expect(mine).toContainText('0%')
    await expect(free.getByRole('link', { name: 'View Course' })).toBeVisible()

    // Open it.
    await mine.getByRole('link', { name: 'Continue Learning' }).click()
    await expect(page).toHaveURL(/\/courses\/[0-9a-f-]{36}$/)
    await expect(page.getByRole('heading', { level: 1, name: FREE })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Back to Courses' })).toBeVisible()
    await expect(progressCard(page)).toContainText('0 of 6 lessons')
    await expect(progressCard(page)).toContainText('0%')

    // The first lesson by default: a YouTube video through the privacy-enhanced player.
    await expect(lessonPanel(page).getByRole('heading', { level: 2, name: 'How Momentum Coach Works' })).toBeVisible()
    await expect(lessonPanel(page).getByText('In Progress', { exact: true })).toBeVisible()
    await expect(lessonPanel(page).locator('iframe')).toHaveAttribute('src', /^https:\/\/www\.youtube-nocookie\.com\/embed\/[\w-]{11}/)
    await expect(lessonPanel(page).getByRole('heading', { name: 'The four parts you will use' })).toBeVisible()
    await expect(lessonPanel(page)).toContainText('6 min')
    await expect(lessonList(page).getByRole('button', { name: /Quick Check: Getting Started/ })).toContainText('Quiz')

    await lessonPanel(page).getByRole('button', { name: 'Mark as Complete' }).click()
    await expect(toast(page, 'Lesson completed!')).toBeVisible()
    await expect(progressCard(page)).toContainText('1 of 6 lessons')
    await expect(progressCard(page)).toContainText('17%')
    await expect(lessonPanel(page).getByText('Completed', { exact: true })).toBeVisible()
    await expect(lessonPanel(page).getByRole('button', { name: 'Mark as Complete' })).toHaveCount(0)
    await expect(lessonList(page).getByRole('button', { name: /How Momentum Coach Works/ }).getByRole('img', { name: 'Completed' })).toBeVisible()

    // A plain video lesson.
    await lessonList(page).getByRole('button', { name: /Your Daily Coaching Call/ }).click()
    await expect(lessonPanel(page).getByRole('heading', { level: 2, name: 'Your Daily Coaching Call' })).toBeVisible()
    await expect(page.locator('video, [data-video-fallback]').first()).toBeVisible()

    // The quiz: wrong, then right (graded by the server).
    await lessonList(page).getByRole('button', { name: /Quick Check: Getting Started/ }).click()
    await expect(page).toHaveURL(/\?lesson=[0-9a-f-]{36}$/)
    const question = lessonPanel(page).getByRole('group', { name: /How many life areas do you rate/ })
    await question.getByRole('button', { name: 'Five' }).click()
    await expect(toast(page, 'Incorrect. Try again!')).toBeVisible()
    await expect(question.getByRole('button', { name: 'Five' })).toHaveAttribute('aria-pressed', 'true')
    await question.getByRole('button', { name: 'Eight' }).click()
    await expect(toast(page, 'Correct answer!')).toBeVisible()
    await expect(question.getByRole('button', { name: 'Eight' })).toHaveAttribute('aria-pressed', 'true')
    expect(await seriousA11yViolations(page)).toEqual([])

    // A reload keeps the selected lesson (and the answer).
    const url = page.url()
    await page.reload()
    await expect(page).toHaveURL(url)
    await expect(lessonPanel(page).getByRole('heading', { level: 2, name: 'Quick Check: Getting Started' })).toBeVisible()
    await expect(
      lessonPanel(page).getByRole('group', { name: /How many life areas do you rate/ }).getByRole('button', { name: 'Eight' }),
    ).toHaveAttribute('aria-pressed', 'true')

    await lessonPanel(page).getByRole('button', { name: 'Mark as Complete' }).click()
    await expect(toast(page, 'Lesson completed!').first()).toBeVisible()
    await expect(progressCard(page)).toContainText('2 of 6 lessons')
    await expect(progressCard(page)).toContainText('33%')

    // The catalogue's 'My Courses' shows the new progress.
    await page.getByRole('link', { name: 'Back to Courses' }).click()
    await expect(page).toHaveURL('/courses')
    const updated = myCourses(page).getByRole('group', { name: FREE })
    await expect(updated).toContainText('33%')
    await expect(updated.getByRole('link', { name: 'Continue Learning' })).toBeVisible()

    // 'Continue Learning' resumes at the lesson last opened.
    await updated.getByRole('link', { name: 'Continue Learning' }).click()
    await expect(lessonPanel(page).getByRole('heading', { level: 2, name: 'Quick Check: Getting Started' })).toBeVisible()
  })

  test('a premium course shows its price and, in payment testing mode, unlocks at once (once the email is confirmed)', async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.goto('/courses')
    const premium = available(page).getByRole('group', { name: PREMIUM })
    await premium.getByRole('link', { name: PREMIUM }).click()

    // The overview before enrolling.
    await expect(page.getByRole('heading', { level: 1, name: PREMIUM })).toBeVisible()
    await expect(page.getByRole('list', { name: 'Course lessons' }).getByRole('listitem')).toHaveCount(7)
    await expect(page.getByText('one-time', { exact: true })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    // The server refuses an unconfirmed email (the page only asks nicely).
    await page.getByRole('button', { name: 'Enroll - $49' }).click()
    await expect(toast(page, 'Failed to enroll in course')).toContainText('Please check your email and confirm your account')
    await confirmEmailViaApi(page, user.email)

    await page.getByRole('button', { name: 'Enroll - $49' }).click()
    await expect(toast(page, 'Testing Mode Active')).toContainText('Course unlocked without payment for testing.')
    await expect(progressCard(page)).toContainText('0 of 7 lessons')
    await expect(lessonPanel(page).getByRole('heading', { level: 2, name: 'The Business Case for Coaching' })).toBeVisible()
  })

  test('lesson text from the database is rendered as sanitised Markdown, and only YouTube is framed', async ({ page }) => {
    await signUpViaApi(page, { confirmed: true })
    const origin = process.env.E2E_BASE_URL!
    const catalogue = (await (await page.request.get('/api/courses')).json()) as { courses: Array<{ id: string; title: string }> }
    const course = catalogue.courses.find((entry) => entry.title === FREE)!
    expect((await page.request.post(`/api/courses/${course.id}/enroll`, { headers: { origin } })).status()).toBe(200)

    // Whatever a database row might hold, the page must not run or frame it.
    const hostile = [
      '## Safe heading',
      '<script>window.__pwned = "script"</script>',
      '<img src="x" onerror="window.__pwned = \'img\'">',
      '<iframe src="https://evil.example/frame"></iframe>',
      '[a bad link](javascript:window.__pwned=\'link\')',
      '**bold survives**',
    ].join('\n\n')
    await page.route(`**/api/courses/${course.id}`, async (route) => {
      const response = await route.fetch()
      const body = (await response.json()) as { lessons: Array<{ content: string | null; videoUrl: string | null; videoType: string | null }> }
      body.lessons[0]!.content = hostile
      body.lessons[0]!.videoUrl = 'https://evil.example/embed/abcdefghijk'
      body.lessons[0]!.videoType = 'youtube'
      await route.fulfill({ response, json: body })
    })
    await page.goto(`/courses/${course.id}`)

    const panel = lessonPanel(page)
    await expect(panel.getByRole('heading', { name: 'Safe heading' })).toBeVisible()
    await expect(panel.locator('strong', { hasText: 'bold survives' })).toBeVisible()
    await expect(panel.locator('script, iframe, img[onerror]')).toHaveCount(0)
    await expect(panel.locator('a[href^="javascript:"]')).toHaveCount(0)
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
  })

  test('a missing course shows Course Not Found with a way back', async ({ page }) => {
    await signUpViaApi(page)
    await page.goto('/courses/7b0f3c1e-2d4a-4e5f-9a6b-1c2d3e4f5a6b')

    await expect(page.getByRole('heading', { level: 1, name: 'Course Not Found' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Back to Courses' }).click()
    await expect(page).toHaveURL('/courses')
    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()
  })

  test('signed out: the Course Platform view sends to login and back', async ({ page }) => {
    await page.goto('/courses')

    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()
    await expect(page.getByText('Please log in to access courses.')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    const login = page.getByRole('link', { name: 'Go to Login' })
    await expect(login).toHaveAttribute('href', '/auth?returnTo=%2Fcourses')
    await login.click()
    await expect(page).toHaveURL('/auth?returnTo=%2Fcourses')
  })
})

// ---- Stripe mode: a fake Stripe and a second server (fresh DATA_DIR, so it seeds too) ----------



const startStripeServer = (fake: FakeStripe): Promise<AppServer> => startAppServer(stripeEnv(fake))

test.describe('premium course in Stripe mode', () => {
  let fake: FakeStripe
  let server: AppServer

  test.beforeAll(async () => {
    test.setTimeout(90_000)
    fake = await startFakeStripe()
    server = await startStripeServer(fake)
    fake.setWebhookUrl(`${server.baseUrl}${STRIPE_WEBHOOK_PATH}`)
  })
  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  test('paying opens the embedded checkout; the paid webhook enrolls, and the return from Stripe confirms it', async ({ page }) => {
    const base = server.baseUrl
    const email = uniqueEmail('course-buyer')
    const signup = await page.request.post(`${base}/api/auth/signup`, {
      headers: { origin: base },
      data: {
        fullName: 'Morgan Buyer',
        email,
        phoneNumber: '2025234567',
        password: 'steady-maple-lantern-42',
        confirmPassword: 'steady-maple-lantern-42',
        communicationConsent: true,
        termsAccepted: true,
      },
    })
    expect(signup.status()).toBe(201)
    const userId = ((await signup.json()) as { user: { id: string } }).user.id
    await confirmEmailViaApi(page, email, base)

    await page.goto(`${base}/courses`)
    const premium = available(page).getByRole('group', { name: PREMIUM })
    await premium.getByRole('button', { name: 'Enroll - $49' }).click()

    // Stripe's embedded checkout: js.stripe.com is unreachable on this machine, so after
    // 'Setting up payment...' the dialog shows the inline error with its hint.
    const dialog = page.getByRole('dialog', { name: 'Complete Your Purchase' })
    await expect(dialog).toBeVisible()
    await expect(dialog).toContainText(`$49 one-time for ${PREMIUM}`)
    await expect(dialog.getByRole('alert')).toContainText('Please try refreshing the page', { timeout: 20_000 })
    expect(await seriousA11yViolations(page)).toEqual([])
    await dialog.getByRole('button', { name: 'Close' }).click()
    await expect(dialog).toHaveCount(0)
    // Not enrolled: nothing was paid.
    await expect(premium.getByRole('button', { name: 'Enroll - $49' })).toBeVisible()

    // The buyer pays (in Stripe); Stripe redirects back with the session id, and sends the webhook.
    const session = fake.latestSessionFor(userId)!
    expect(session).toMatchObject({ mode: 'payment', ui_mode: 'embedded_page', metadata: { kind: 'course' } })
    const events = fake.completeCheckout(session.id as string)
    const courseId = (session.metadata as Record<string, string>).courseId!
    await page.goto(`${base}/courses/${courseId}?session_id=${session.id as string}`)
    await expect(page.getByRole('button', { name: 'Confirming your payment...' })).toBeVisible()
    expect(await fake.deliver(events)).toEqual([200])

    await expect(toast(page, 'Successfully enrolled in course!')).toBeVisible({ timeout: 15_000 })
    await expect(progressCard(page)).toContainText('0 of 7 lessons')
    await expect(page).toHaveURL(`${base}/courses/${courseId}`)
    await page.goto(`${base}/courses`)
    await expect(myCourses(page).getByRole('group', { name: PREMIUM })).toContainText('0%')
  })
})
