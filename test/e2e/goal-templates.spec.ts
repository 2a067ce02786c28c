import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { signInAsStaff, startStaffServer } from './support/staff'
import { signUpViaApi } from './support/users'

/**
 * Goal templates in Chromium (docs/decisions/081), on the shared server, whose embedded database got
 * the starter templates on its first start: an Elite member starts the goal intake from one, finds
 * its answers in the wizard (the spec's texts unchanged), changes one and finishes; Premium sees
 * what Elite adds instead. On a server of its own with a coach (`npm run staff:add`): the coach
 * writes a template and offers it to their member, who accepts it from the dashboard.
 */

const ORIGIN = () => process.env.E2E_BASE_URL!

test.describe('goal templates', () => {
  test('an Elite member starts the goal intake from a template, changes an answer and finishes', async ({ page }) => {
    test.setTimeout(90_000)
    await signUpViaApi(page, { paid: 'elite', fullName: 'Tess Template' })
    await page.goto('/goal-intake')

    const picker = page.getByRole('region', { name: 'Start from a template' })
    await expect(picker.getByRole('heading', { level: 3, name: 'Marathon in 6 months' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await picker.getByRole('link', { name: 'Use this template: Marathon in 6 months' }).click()

    await expect(page.getByRole('status').filter({ hasText: 'Started from the template Marathon in 6 months.' })).toBeVisible()
    await expect(page.getByText('Step 1 of 10')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Faith', exact: true })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Next', exact: true }).click()
    await page.getByRole('button', { name: 'Next', exact: true }).click()

    // Step 3: the template's fitness focus and target, prefilled; the member changes them.
    await expect(page.getByRole('heading', { level: 1, name: 'Fitness & Health' })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'How satisfied are you with your fitness & health currently? (1-10)' })).toBeVisible()
    for (const option of ['Exercise at least three times a week', 'Eat healthier, more balanced meals', 'Sleep seven to eight hours a night']) {
      await expect(page.getByRole('button', { name: option, exact: true })).toHaveAttribute('aria-pressed', 'true')
    }
    await expect(page.getByRole('button', { name: 'Reach and keep a healthy weight', exact: true })).toHaveAttribute('aria-pressed', 'false')
    await expect(page.getByLabel('Additional notes or specific goals:')).toHaveValue('Target: 9/10 in 90 days.')
    await page.getByRole('button', { name: 'Eat healthier, more balanced meals', exact: true }).click()
    await expect(page.getByRole('button', { name: 'Eat healthier, more balanced meals', exact: true })).toHaveAttribute('aria-pressed', 'false')
    await page.getByRole('button', { name: '4 out of 10', exact: true }).click()

    for (let i = 0; i < 5; i++) await page.getByRole('button', { name: 'Next', exact: true }).click()
    await page.getByRole('button', { name: 'Work & Career' }).click()
    await page.getByRole('button', { name: 'Final Step' }).click()

    // Step 10: the template's 90-day goal with its first commitments, and its obstacles.
    const goal = page.getByLabel('What is your #1 goal in the next 90 days?')
    await expect(goal).toHaveValue(/^Run a half marathon at an easy, steady pace/)
    await expect(goal).toHaveValue(/First commitments:\n- Sign up for a marathon six months out/)
    await expect(page.getByLabel('What obstacles might get in your way?')).toHaveValue(/^- Skipping runs when the weather turns/)
    await goal.fill('Run a half marathon in April.')
    await page.getByRole('button', { name: 'Complete Goal Setting & Start Coaching' }).click()
    await expect(page.getByText('Goals Saved Successfully!')).toBeVisible()
    await expect(page).toHaveURL(/\/dashboard$/)

    // What was saved: the member's changes over the template's answers.
    const saved = (await (await page.request.get(`${ORIGIN()}/api/goals`)).json()) as { goals: Array<{ lifeArea: string; selectedOptions: string[]; satisfactionScore: number | null; specificGoals: Record<string, string | null> | null }> }
    const fitness = saved.goals.find((record) => record.lifeArea === 'fitness')!
    expect(fitness.selectedOptions.sort()).toEqual(['better_sleep', 'exercise_routine'])
    expect(fitness.satisfactionScore).toBe(4)
    const specific = saved.goals.find((record) => record.lifeArea === 'specific_goals')!
    expect(specific.specificGoals).toMatchObject({ goal_90_days: 'Run a half marathon in April.', obstacles: expect.stringContaining('Late nights before long runs') })
  })

  test('Premium sees what Elite adds: a way to the plans, not the templates', async ({ page }) => {
    await signUpViaApi(page, { paid: 'premium' })
    await page.goto('/goal-intake')
    await expect(page.getByText('Step 1 of 10')).toBeVisible()
    const upgrade = page.getByRole('link', { name: 'Start from a coach-made template with Elite' })
    await expect(upgrade).toHaveAttribute('href', '/payment')
    await expect(page.getByRole('region', { name: 'Start from a template' })).toHaveCount(0)
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})

test.describe("a coach's template", () => {
  test('the coach writes one and offers it to their member, who accepts it on the dashboard and starts from it', async ({ page, browser }) => {
    test.setTimeout(180_000)
    const server = await startStaffServer([{ email: uniqueEmail('coach'), fullName: 'Dana Lee', roles: ['coach'] }])
    try {
      const coachContext = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '10.250.9.1' } })
      const coachPage = await coachContext.newPage()
      await signInAsStaff(coachPage, server, server.staff[0]!)
      // The member first: their dashboard's "Your coach" gives them Dana (the only coach).
      await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', fullName: 'Omar Offer', logFile: server.logFile })
      await page.goto(`${server.baseUrl}/dashboard`)
      await expect(page.getByRole('region', { name: 'Your coach' }).getByText('Dana Lee', { exact: true })).toBeVisible()

      await coachPage.goto(`${server.baseUrl}/goal-templates`)
      await expect(coachPage.getByRole('heading', { level: 1, name: 'Goal templates' })).toBeVisible()
      // The starters are there, not the coach's to change.
      const list = coachPage.getByRole('list', { name: 'Goal templates' })
      await expect(list.getByRole('heading', { name: 'Debt-free in a year' })).toBeVisible()
      const form = coachPage.getByRole('region', { name: 'New template' })
      await form.getByLabel('Name').fill('Spring 10k')
      await form.getByLabel('Who it is for').fill('Runners who can run 3 km today.')
      await form.getByLabel('Suggested 90-day goal').fill('Run 10 km without stopping.')
      await form.getByLabel('Obstacles to watch').fill('Rainy mornings')
      await form.getByLabel('Suggested first commitments').fill('Run three times this week')
      const fitness = form.getByRole('group', { name: 'Fitness & Health' })
      await fitness.getByLabel('Target score').selectOption('8')
      await fitness.getByRole('checkbox', { name: 'Sleep seven to eight hours a night' }).check()
      expect(await seriousA11yViolations(coachPage)).toEqual([])
      await form.getByRole('button', { name: 'Publish template' }).click()
      await expect(list.getByRole('heading', { name: 'Spring 10k' })).toBeVisible()
      await list.getByLabel('Offer Spring 10k to').selectOption({ label: 'Omar Offer' })
      await list.getByRole('button', { name: 'Offer Spring 10k', exact: true }).click()
      await expect(coachPage.getByText('Omar Offer will see it on their dashboard and can accept or decline it.')).toBeVisible()
      await coachContext.close()

      await page.reload()
      const offer = page.getByRole('region', { name: 'Dana suggested a template: Spring 10k' })
      await expect(offer).toBeVisible()
      expect(await seriousA11yViolations(page)).toEqual([])
      await offer.getByRole('button', { name: 'Accept' }).click()
      await expect(page).toHaveURL(/\/goal-intake\?template=/)
      await expect(page.getByRole('status').filter({ hasText: 'Started from the template Spring 10k.' })).toBeVisible()
      await expect(page.getByText('Step 1 of 10')).toBeVisible()

      // Their account page says who suggested it.
      await page.goto(`${server.baseUrl}/account`)
      await expect(page.getByRole('region', { name: 'Account activity' })).toContainText('Dana Lee (coach) suggested a goal template to you.')
    } finally {
      await server.stop()
    }
  })
})
