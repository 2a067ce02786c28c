import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { expect, test } from './support/fixtures'
import { holdRequests } from './support/hold'
import { signUpViaApi } from './support/users'

/**
 * The goal intake wizard and the progress dashboard (spec 2 §2, §4, §5, §7, §8), driven the way a
 * paid user would, against the production build.
 */

/** Axe with the WCAG 2 A and AA rules; only the serious and critical violations. */
async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const AREAS = [
  { title: 'Faith', option: 'Build a daily prayer or meditation habit', score: 8, notes: 'Ten quiet minutes each morning' },
  { title: 'Family Relationships', option: 'Spend more quality time together', score: 3, notes: '' },
  { title: 'Fitness & Health', option: 'Exercise at least three times a week', score: 7, notes: '' },
  { title: 'Finance', option: 'Pay off debt', score: 2, notes: 'Credit card first' },
  { title: 'Friends & Social Life', option: 'Make new friends', score: 9, notes: '' },
  { title: 'Fun & Recreation', option: 'Travel somewhere new', score: 6, notes: '' },
  { title: 'Service to Others', option: 'Get better at my job', score: 4, notes: '' },
  // Not rated: saved as 5.
  { title: 'Personal Development', option: 'Read more books', score: null, notes: 'Two books a month' },
] as const

const ORIGIN = () => process.env.E2E_BASE_URL!

/** A full save through the API (for the tests whose subject is not the wizard itself). */
const SAVED_GOALS = {
  areas: {
    faith: { selectedOptions: ['daily_prayer'], satisfactionScore: 8, customNotes: 'Mornings' },
    family: { selectedOptions: ['quality_time', 'family_traditions'], satisfactionScore: 3, customNotes: '' },
    fitness: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    finance: { selectedOptions: ['pay_off_debt'], satisfactionScore: 2, customNotes: '' },
    friends: { selectedOptions: [], satisfactionScore: 9, customNotes: '' },
    fun: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    service: { selectedOptions: ['paid_more'], satisfactionScore: 4, customNotes: '' },
    personal_development: { selectedOptions: ['read_more'], satisfactionScore: null, customNotes: 'Two books a month' },
  },
  workCareer: { company: 'google', industry: 'education', role: 'Curriculum Designer' },
  specificGoals: { goal90Days: 'Run a 5k', goal12Months: 'Launch the course', goal5Years: 'Lead a school', obstacles: 'Evenings are busy' },
  callTime: { time: '6:30', period: 'PM', timezone: 'central' },
}

async function saveGoalsViaApi(page: Page) {
  const response = await page.request.put('/api/goals', { headers: { origin: ORIGIN() }, data: SAVED_GOALS })
  expect(response.status(), await response.text()).toBe(200)
}

async function chooseOption(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
  await expect(page.getByLabel(label, { exact: true })).toHaveText(option)
  // While the list closes, Radix keeps the rest of the page aria-hidden; wait until it is gone so a
  // following accessibility scan sees the page as a user does.
  await expect(page.getByRole('listbox')).toHaveCount(0)
  await expect(page.locator('[data-radix-popper-content-wrapper]')).toHaveCount(0)
}

const statCard = (page: Page, name: string): Locator => page.getByRole('group', { name, exact: true })

test.describe('goal intake', () => {
  test('a paid user walks all 10 steps, saves, and lands on the dashboard with their data', async ({ page }) => {
    test.setTimeout(90_000)
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/goal-intake')

    await expect(page.getByText('Step 1 of 10')).toBeVisible()
    await expect(page.getByRole('progressbar', { name: 'Goal setting progress' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Previous' })).toHaveCount(0)
    expect(await seriousA11yViolations(page)).toEqual([])

    for (const [index, area] of AREAS.entries()) {
      await expect(page.getByText(`Step ${index + 1} of 10`)).toBeVisible()
      await expect(page.getByRole('heading', { level: 1, name: area.title, exact: true })).toBeVisible()
      await expect(page.getByRole('heading', { name: 'Select your focus areas:' })).toBeVisible()
      await expect(page.getByRole('heading', { name: `How satisfied are you with your ${area.title.toLowerCase()} currently? (1-10)` })).toBeVisible()

      const option = page.getByRole('button', { name: area.option, exact: true })
      await expect(option).toHaveAttribute('aria-pressed', 'false')
      if (index === 1) {
        // Keyboard: focus the option and press Space; it toggles like a click.
        await option.focus()
        await page.keyboard.press('Space')
      } else {
        await option.click()
      }
      await expect(option).toHaveAttribute('aria-pressed', 'true')
      if (index === 0) {
        // Options toggle: a second option on and off again.
        const other = page.getByRole('button', { name: 'Live more consistently with my values' })
        await other.click()
        await expect(other).toHaveAttribute('aria-pressed', 'true')
        await other.click()
        await expect(other).toHaveAttribute('aria-pressed', 'false')
      }
      if (area.score !== null) {
        await page.getByRole('button', { name: `${area.score} out of 10`, exact: true }).click()
        await expect(page.getByRole('button', { name: `${area.score} out of 10`, exact: true })).toHaveAttribute('aria-pressed', 'true')
      }
      if (area.notes) await page.getByLabel('Additional notes or specific goals:').fill(area.notes)

      if (index > 0) await expect(page.getByRole('button', { name: 'Previous' })).toBeVisible()
      const next = page.getByRole('button', { name: index === 7 ? 'Work & Career' : 'Next', exact: true })
      await next.click()
    }

    // Step 9: work & career.
    await expect(page.getByText('Step 9 of 10')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Your Work & Career' })).toBeFocused()
    await chooseOption(page, 'Select if listed - We partner with these companies!', 'Northwind Traders')
    const education = page.getByRole('checkbox', { name: 'Education' })
    const technology = page.getByRole('checkbox', { name: 'Technology & Software' })
    await education.click()
    await expect(education).toBeChecked()
    await technology.click()
    await expect(technology).toBeChecked()
    await expect(education).not.toBeChecked()
    await technology.click() // unchecking does nothing
    await expect(technology).toBeChecked()
    await page.getByLabel('Role / Job Title (optional)').fill('Product Manager')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Final Step' }).click()

    // Step 10: specific goals and the call time.
    await expect(page.getByText('Step 10 of 10')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Your Specific Personal Goals' })).toBeVisible()
    await page.getByLabel('What is your #1 goal in the next 90 days?').fill('Run a 5k without stopping')
    await page.getByLabel('What is your #1 goal in the next 12 months?').fill('Ship the new product line')
    await page.getByLabel('What is your #1 goal in the next 5 years?').fill('Lead a product organisation')
    await page.getByLabel('What obstacles might get in your way?').fill('Late meetings')
    await chooseOption(page, 'Time', '7:30')
    await chooseOption(page, 'AM/PM', 'AM')
    await chooseOption(page, 'Timezone', 'Pacific (PT)')
    expect(await seriousA11yViolations(page)).toEqual([])

    // Hold the save so its pending state can be seen.
    const releaseSave = await holdRequests(page, '**/api/goals', { when: (route) => route.request().method() === 'PUT' })
    await page.getByRole('button', { name: 'Complete Goal Setting & Start Coaching' }).click()
    await expect(page.getByRole('button', { name: 'Saving Goals...' })).toBeDisabled()
    releaseSave()

    await expect(page.getByText('Goals Saved Successfully!')).toBeVisible()
    await expect(page.getByText("Your AI coach is being prepared. You'll receive your first call soon!")).toBeVisible()
    await expect(page).toHaveURL(/\/dashboard$/)

    // The dashboard: greeting, badges, scores, focus and the empty calls panel.
    await expect(page.getByText('Welcome back, Jordan Rivera!')).toBeVisible()
    await expect(page.getByTestId('partner-badge')).toHaveText('Northwind Traders')
    // A testing-mode plan starts with the 7-day free trial.
    await expect(page.getByTestId('subscription-badge')).toHaveText('Trial')
    // (8 + 3 + 7 + 2 + 9 + 6 + 4 + 5) / 8 life areas = 5.5; the two special records have no score.
    await expect(statCard(page, 'Overall Score')).toContainText('6/10')
    await expect(statCard(page, 'Life Areas')).toContainText('8')
    await expect(statCard(page, 'Calls Completed')).toContainText('0')
    await expect(statCard(page, 'Days Active')).toContainText('1')

    const progress = page.getByRole('region', { name: 'Life Areas Progress' })
    for (const [label, score] of [['Faith', 8], ['Family', 3], ['Fitness', 7], ['Finance', 2], ['Friends', 9], ['Fun', 6], ['Service', 4], ['Development', 5]] as const) {
      await expect(progress.getByRole('progressbar', { name: `${label}: ${score} out of 10` })).toBeVisible()
    }
    const focus = page.getByRole('region', { name: "This Week's Focus" }).getByRole('listitem')
    await expect(focus).toHaveCount(3)
    await expect(focus.nth(0)).toContainText('Priority 1')
    await expect(focus.nth(0)).toContainText('Finance')
    await expect(focus.nth(1)).toContainText('Priority 2')
    await expect(focus.nth(1)).toContainText('Family Relationships')
    await expect(focus.nth(2)).toContainText('Priority 3')
    await expect(focus.nth(2)).toContainText('Service to Others')
    await expect(page.getByRole('region', { name: 'Recent Coaching Calls' })).toContainText(
      'No calls yet. Your first coaching call will be scheduled soon!',
    )
    await expect(page.getByText("Some data couldn't be loaded")).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0)
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('Edit Goals shows everything prefilled, including the call time', async ({ page }) => {
    await signUpViaApi(page, { paid: 'premium', fullName: 'Sam Okafor' })
    await saveGoalsViaApi(page)
    await page.goto('/dashboard')
    await expect(page.getByTestId('partner-badge')).toHaveText('General')
    await page.getByRole('link', { name: 'Edit Goals' }).click()
    await expect(page).toHaveURL(/\/goal-intake$/)

    await expect(page.getByRole('heading', { level: 1, name: 'Faith' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Build a daily prayer or meditation habit' })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('button', { name: 'Read scripture or spiritual books regularly' })).toHaveAttribute('aria-pressed', 'false')
    await expect(page.getByRole('button', { name: '8 out of 10' })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByLabel('Additional notes or specific goals:')).toHaveValue('Mornings')
    await page.getByRole('button', { name: 'Next' }).click()

    await expect(page.getByRole('heading', { level: 1, name: 'Family Relationships' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Spend more quality time together' })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('button', { name: 'Create family traditions and rituals' })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('button', { name: '3 out of 10' })).toHaveAttribute('aria-pressed', 'true')
    for (let i = 0; i < 6; i++) await page.getByRole('button', { name: /^(Next|Work & Career)$/ }).click()

    // Step 8: personal development was not rated, so it was saved as 5.
    await expect(page.getByRole('heading', { level: 1, name: 'Personal Development' })).toBeVisible()
    await expect(page.getByRole('button', { name: '5 out of 10' })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByLabel('Additional notes or specific goals:')).toHaveValue('Two books a month')
    await page.getByRole('button', { name: 'Work & Career' }).click()

    await expect(page.getByLabel('Select if listed - We partner with these companies!')).toHaveText('Google')
    await expect(page.getByRole('checkbox', { name: 'Education' })).toBeChecked()
    await expect(page.getByRole('checkbox', { name: 'Technology & Software' })).not.toBeChecked()
    await expect(page.getByLabel('Role / Job Title (optional)')).toHaveValue('Curriculum Designer')
    await page.getByRole('button', { name: 'Final Step' }).click()

    await expect(page.getByLabel('What is your #1 goal in the next 90 days?')).toHaveValue('Run a 5k')
    await expect(page.getByLabel('What is your #1 goal in the next 12 months?')).toHaveValue('Launch the course')
    await expect(page.getByLabel('What is your #1 goal in the next 5 years?')).toHaveValue('Lead a school')
    await expect(page.getByLabel('What obstacles might get in your way?')).toHaveValue('Evenings are busy')
    await expect(page.getByLabel('Time', { exact: true })).toHaveText('6:30')
    await expect(page.getByLabel('AM/PM', { exact: true })).toHaveText('PM')
    await expect(page.getByLabel('Timezone', { exact: true })).toHaveText('Central (CT)')

    // Previous walks back without losing anything.
    await page.getByRole('button', { name: 'Previous' }).click()
    await expect(page.getByLabel('Role / Job Title (optional)')).toHaveValue('Curriculum Designer')
  })

  test('a failed save shows the error toast and keeps the form as typed', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })
    await page.route('**/api/goals', async (route) => {
      if (route.request().method() !== 'PUT') return route.continue()
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is not answering right now.' } }),
      })
    })
    await page.goto('/goal-intake')
    await page.getByRole('button', { name: '9 out of 10' }).click()
    for (let i = 0; i < 9; i++) await page.getByRole('button', { name: /^(Next|Work & Career|Final Step)$/ }).click()
    await page.getByLabel('What is your #1 goal in the next 90 days?').fill('Keep this text')
    await page.getByRole('button', { name: 'Complete Goal Setting & Start Coaching' }).click()

    await expect(page.getByText('Error Saving Goals')).toBeVisible()
    await expect(page.getByText('The database is not answering right now.')).toBeVisible()
    await expect(page).toHaveURL(/\/goal-intake$/)
    await expect(page.getByLabel('What is your #1 goal in the next 90 days?')).toHaveValue('Keep this text')
    await expect(page.getByRole('button', { name: 'Complete Goal Setting & Start Coaching' })).toBeEnabled()
    for (let i = 0; i < 9; i++) await page.getByRole('button', { name: 'Previous' }).click()
    await expect(page.getByRole('button', { name: '9 out of 10' })).toHaveAttribute('aria-pressed', 'true')
  })

  test('a goals load that never answers gives up after 10 s and continues with an empty form', async ({ page }) => {
    test.setTimeout(45_000)
    await signUpViaApi(page, { paid: 'basic' })
    await saveGoalsViaApi(page)
    await page.route('**/api/goals', () => {
      // Never answered.
    })
    await page.goto('/goal-intake')
    await expect(page.getByText('Loading your goals...')).toBeVisible()
    await expect(page.getByText('Step 1 of 10')).toBeVisible({ timeout: 20_000 })
    await expect(page.getByRole('button', { name: 'Build a daily prayer or meditation habit' })).toHaveAttribute('aria-pressed', 'false')
    await expect(page.getByRole('button', { name: '8 out of 10' })).toHaveAttribute('aria-pressed', 'false')
  })
})

test.describe('dashboard', () => {
  test('/home shows the same dashboard', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Riley Chen' })
    await saveGoalsViaApi(page)
    await page.goto('/home')
    await expect(page.getByRole('heading', { level: 1, name: 'Coaching Dashboard' })).toBeVisible()
    await expect(page.getByText('Welcome back, Riley Chen!')).toBeVisible()
    await expect(statCard(page, 'Overall Score')).toContainText('6/10')
  })

  test('eight areas scored 8 show 8/10, eight life areas, and the balanced message', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })
    const areas = Object.fromEntries(
      Object.entries(SAVED_GOALS.areas).map(([area, value]) => [area, { ...value, satisfactionScore: 8 }]),
    )
    const response = await page.request.put('/api/goals', { headers: { origin: ORIGIN() }, data: { ...SAVED_GOALS, areas } })
    expect(response.status(), await response.text()).toBe(200)
    await page.goto('/dashboard')
    await expect(statCard(page, 'Overall Score')).toContainText('8/10')
    await expect(statCard(page, 'Life Areas')).toContainText('8')
    const focus = page.getByRole('region', { name: "This Week's Focus" })
    await expect(focus).toContainText('Great job! All areas are well balanced.')
    await expect(focus.getByRole('listitem')).toHaveCount(0)
  })

  test('a goals load that fails twice then succeeds shows the data without an error card', async ({ page }) => {
    test.setTimeout(45_000)
    await signUpViaApi(page, { paid: 'basic' })
    await saveGoalsViaApi(page)
    let attempts = 0
    await page.route('**/api/goals', async (route) => {
      if (route.request().method() !== 'GET') return route.continue()
      attempts += 1
      if (attempts <= 2) {
        return route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'INTERNAL', message: 'boom' } }) })
      }
      return route.continue()
    })
    await page.goto('/dashboard')

    await expect(statCard(page, 'Overall Score')).toContainText('6/10', { timeout: 20_000 })
    expect(attempts).toBe(3)
    await expect(page.getByRole('region', { name: "This Week's Focus" }).getByRole('listitem')).toHaveCount(3)
    await expect(page.getByText("Some data couldn't be loaded")).toHaveCount(0)
    await expect(page.getByText('Goals Loading Error')).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0)
  })

  test('a goals load that keeps failing shows the warning card, panel texts and toast, and Retry recovers only that part', async ({ page }) => {
    test.setTimeout(60_000)
    await signUpViaApi(page, { paid: 'basic' })
    await saveGoalsViaApi(page)
    let failing = true
    let goalLoads = 0
    let callLoads = 0
    page.on('request', (request) => {
      if (request.url().endsWith('/api/calls/recent')) callLoads += 1
    })
    await page.route('**/api/goals', async (route) => {
      if (route.request().method() !== 'GET') return route.continue()
      goalLoads += 1
      if (failing) {
        return route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'INTERNAL', message: 'boom' } }) })
      }
      return route.continue()
    })
    await page.goto('/dashboard')

    // The calls load independently and show while goals keep failing.
    await expect(page.getByText('No calls yet. Your first coaching call will be scheduled soon!')).toBeVisible()
    await expect(page.getByText("Some data couldn't be loaded")).toBeVisible({ timeout: 25_000 })
    expect(goalLoads).toBe(3) // the first try and two retries
    await expect(page.getByText('Goals Loading Error')).toBeVisible()
    await expect(page.getByText('Unable to load your goals. You can retry or continue with limited data.')).toBeVisible()
    await expect(page.getByText('Unable to load goals data')).toBeVisible()
    await expect(page.getByText('Unable to load focus areas')).toBeVisible()
    await expect(page.getByText('Unable to load coaching calls')).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Try Again' })).toHaveCount(2)
    await expect(page.getByRole('button', { name: 'Retry Failed' })).toBeVisible()
    await expect(statCard(page, 'Overall Score')).toContainText('—')
    await expect(statCard(page, 'Life Areas')).toContainText('—')
    await expect(statCard(page, 'Calls Completed')).toContainText('0')
    expect(await seriousA11yViolations(page)).toEqual([])

    failing = false
    const callsBefore = callLoads
    await page.getByRole('button', { name: 'Retry', exact: true }).click()
    await expect(statCard(page, 'Overall Score')).toContainText('6/10')
    await expect(page.getByText("Some data couldn't be loaded")).toHaveCount(0)
    await expect(page.getByText('Unable to load goals data')).toHaveCount(0)
    await expect(page.getByRole('region', { name: 'Life Areas Progress' }).getByRole('progressbar', { name: 'Faith: 8 out of 10' })).toBeVisible()
    expect(goalLoads).toBe(4)
    expect(callLoads).toBe(callsBefore) // only the failed part was reloaded
  })

  test('a calls load that keeps failing shows its toast and panel text; Try Again reloads it', async ({ page }) => {
    test.setTimeout(60_000)
    await signUpViaApi(page, { paid: 'basic' })
    let failing = true
    await page.route('**/api/calls/recent', async (route) => {
      if (failing) return route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' })
      return route.continue()
    })
    await page.goto('/dashboard')
    await expect(page.getByText('Unable to load coaching calls')).toBeVisible({ timeout: 25_000 })
    await expect(page.getByText('Calls Loading Error')).toBeVisible()
    await expect(page.getByText('Unable to load your coaching calls. You can retry or continue with available data.')).toBeVisible()
    await expect(statCard(page, 'Calls Completed')).toContainText('—')
    // No goals yet: the focus panel's empty message.
    await expect(page.getByText('Great job! All areas are well balanced.')).toBeVisible()

    failing = false
    await page.getByRole('region', { name: 'Recent Coaching Calls' }).getByRole('button', { name: 'Try Again' }).click()
    await expect(page.getByText('No calls yet. Your first coaching call will be scheduled soon!')).toBeVisible()
    await expect(statCard(page, 'Calls Completed')).toContainText('0')
    await expect(page.getByText("Some data couldn't be loaded")).toHaveCount(0)
  })

  test('shows the full-screen loading state, then the last calls with minutes, areas and status', async ({ page }) => {
    await signUpViaApi(page, { paid: 'elite' })
    const calls = [
      { id: 'c1', callDate: '2026-11-20T14:00:00.000Z', callDuration: 329, areasDiscussed: ['fitness', 'personal_development'], completionStatus: 'completed' },
      { id: 'c2', callDate: '2026-11-19T14:00:00.000Z', callDuration: 0, areasDiscussed: [], completionStatus: 'no_answer' },
      { id: 'c3', callDate: '2026-11-18T14:00:00.000Z', callDuration: 90, areasDiscussed: ['finance'], completionStatus: 'completed' },
      { id: 'c4', callDate: '2026-11-17T14:00:00.000Z', callDuration: 600, areasDiscussed: ['family'], completionStatus: 'failed' },
      { id: 'c5', callDate: '2026-11-16T14:00:00.000Z', callDuration: 31, areasDiscussed: ['faith'], completionStatus: 'completed' },
    ]
    // Both loads held back: the dashboard shows its full-screen loading state.
    const releaseGoals = await holdRequests(page, '**/api/goals')
    const releaseCalls = await holdRequests(page, '**/api/calls/recent', {
      then: (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ calls }) }),
    })
    // Calls Completed counts every completed call, not only the five listed.
    await page.route('**/api/dashboard/stats', async (route) => {
      const response = await route.fetch()
      await route.fulfill({ response, json: { ...(await response.json()), callsCompleted: 12 } })
    })
    await page.goto('/dashboard')
    await expect(page.getByText('Loading your dashboard...')).toBeVisible()
    releaseGoals()
    releaseCalls()

    const rows = page.getByRole('region', { name: 'Recent Coaching Calls' }).getByTestId('call-row')
    await expect(rows).toHaveCount(5)
    await expect(rows.nth(0)).toContainText('5 min')
    await expect(rows.nth(0).getByRole('list', { name: 'Areas discussed' })).toHaveText(/Fitness\s*Development/)
    await expect(rows.nth(0)).toContainText('completed')
    await expect(rows.nth(1)).toContainText('0 min')
    await expect(rows.nth(1)).toContainText('no answer')
    await expect(rows.nth(2)).toContainText('2 min')
    await expect(rows.nth(3)).toContainText('10 min')
    await expect(rows.nth(4)).toContainText('1 min')
    // 'completed' is highlighted (the primary badge); other statuses are not.
    const completed = rows.nth(0).getByText('completed', { exact: true })
    const noAnswer = rows.nth(1).getByText('no answer', { exact: true })
    expect(await completed.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(
      await noAnswer.evaluate((el) => getComputedStyle(el).backgroundColor),
    )
    await expect(statCard(page, 'Calls Completed')).toContainText('12')
    // No goals yet: nothing to focus on, and every area at 0.
    await expect(page.getByText('Great job! All areas are well balanced.')).toBeVisible()
    await expect(statCard(page, 'Overall Score')).toContainText('0/10')
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('is paid-only: a signed-in user without a plan is sent to /payment', async ({ page }) => {
    await signUpViaApi(page, { partnerProgram: 'ACME-2026' })
    await page.goto('/dashboard')
    await expect(page).toHaveURL(/\/payment$/)
  })
})
