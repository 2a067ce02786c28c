import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { BrowserContext, Locator, Page } from '@playwright/test'
import { eq } from 'drizzle-orm'
import type { LifeArea } from '#common/domain'
import { createSession } from '#server/auth/session'
import { openDatabase, type Db } from '#server/db/client'
import { coachingCalls, commitments, goals, profiles, subscribers } from '#server/db/schema'
import { insertUser } from '../helpers/factories'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'

/**
 * The progress page (Premium and Elite's detailed analytics): a Premium member sees the four
 * charts of their last twelve weeks with the seeded figures in each chart's table, and the page
 * passes axe; a Basic member sees the plain upgrade message and never loads the chart library.
 * The server is the production app on a test clock (Thursday 12 November 2026, 7:00 AM in New
 * York) over a DATA_DIR this spec seeds before it starts.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const START = new Date('2026-11-12T12:00:00Z')
const at = (iso: string) => new Date(iso)
const NEW_YORK = 'America/New_York'

let dataDir = ''
let server: ClockedAppServer | undefined
let base = ''
const tokens = { premium: '', basic: '' }

async function member(db: Db, fullName: string, tier: 'premium' | 'basic') {
  const user = await insertUser(db, { fullName, emailConfirmedAt: START })
  await db.insert(subscribers).values({ userId: user.id, subscribed: true, tier, status: 'active', source: 'testing' })
  await db.update(profiles).set({ onboardingCompleted: true, timezone: NEW_YORK }).where(eq(profiles.id, user.id))
  return user
}

/** The same weeks for both members: one in October, the week ending 8 November, the week running. */
async function seedCalls(db: Db, userId: string) {
  const call = async (values: Partial<typeof coachingCalls.$inferInsert> & { callDate: Date }) =>
    (await db.insert(coachingCalls).values({ userId, timeZone: NEW_YORK, completionStatus: 'completed', slot: 'daily', ...values }).returning())[0]!
  await call({ localDate: '2026-09-30', callDate: at('2026-09-30T14:00:00Z'), callDuration: 180, areasDiscussed: ['faith'], mood: 5 })
  const monday = await call({ localDate: '2026-11-02', callDate: at('2026-11-02T15:00:00Z'), callDuration: 300, areasDiscussed: ['fitness', 'finance'], mood: 6 })
  await call({ localDate: '2026-11-03', callDate: at('2026-11-03T15:00:00Z'), callDuration: 240, areasDiscussed: ['fitness'], mood: 8 })
  await call({ localDate: '2026-11-04', attempt: 0, callDate: at('2026-11-04T15:00:00Z'), completionStatus: 'no_answer' })
  await call({ localDate: '2026-11-04', attempt: 1, callDate: at('2026-11-04T15:10:00Z'), completionStatus: 'voicemail' })
  await call({ slot: 'evening', localDate: '2026-11-10', callDate: at('2026-11-11T00:30:00Z'), callDuration: 600, areasDiscussed: ['family'], mood: 4 })
  await db.insert(commitments).values([
    { userId, callId: monday.id, position: 0, text: 'Walk daily', madeAt: at('2026-11-02T15:05:00Z'), status: 'kept', resolvedAt: at('2026-11-03T15:05:00Z'), resolvedBy: 'call' },
    { userId, callId: monday.id, position: 1, text: 'Call Mom', madeAt: at('2026-11-02T15:05:00Z'), status: 'kept', resolvedAt: at('2026-11-05T12:00:00Z'), resolvedBy: 'app' },
    { userId, callId: monday.id, position: 2, text: 'Sleep by 11', madeAt: at('2026-11-02T15:05:00Z'), status: 'missed', resolvedAt: at('2026-11-11T00:40:00Z'), resolvedBy: 'call' },
  ])
  const goal = (lifeArea: LifeArea, satisfactionScore: number) => ({ userId, lifeArea, satisfactionScore })
  await db.insert(goals).values([goal('fitness', 7), goal('family', 3)])
}

async function seed() {
  const database = await openDatabase({ dataDir })
  try {
    await database.migrate()
    const { db } = database
    const clock = { now: () => START }
    const premium = await member(db, 'Riley Chen', 'premium')
    const basic = await member(db, 'Sam Ortiz', 'basic')
    await seedCalls(db, premium.id)
    await seedCalls(db, basic.id)
    tokens.premium = (await createSession(db, clock, premium.id)).token
    tokens.basic = (await createSession(db, clock, basic.id)).token
  } finally {
    await database.close()
  }
}

async function signIn(context: BrowserContext, who: keyof typeof tokens) {
  await context.addCookies([{ name: 'session', value: tokens[who], url: base, httpOnly: true, sameSite: 'Lax' }])
}

/** The chart's region (named by its heading), its figures table opened by its summary. */
async function openTable(page: Page, chart: string): Promise<Locator> {
  const region = page.getByRole('region', { name: chart })
  await region.getByText(`${chart}: the figures as a table`).click()
  return region.getByRole('table')
}

/** A table row's cells after its first (header) cell. */
const cells = (table: Locator, rowHeader: string) => table.getByRole('row').filter({ has: table.page().getByRole('rowheader', { name: rowHeader, exact: true }) }).getByRole('cell')

const CHARTS = ['Calls per Week', 'Mood over Time', 'Life Area Coverage', 'Commitments Kept']

test.use({ timezoneId: NEW_YORK, locale: 'en-US' })

test.describe('the progress page', () => {
  test.describe.configure({ timeout: 90_000 })

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-progress-'))
    await seed()
    server = await startClockedAppServer({ start: START, dataDir })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('a Premium member sees the four charts of their twelve weeks, each with its figures as a table', async ({ page, context }) => {
    await page.clock.setFixedTime(START)
    await signIn(context, 'premium')
    const chartCode: string[] = []
    page.on('request', (request) => {
      if (/progress-charts-[^/]*\.js$/.test(request.url())) chartCode.push(request.url())
    })

    // The dashboard does not load the chart library.
    await page.goto(`${base}/dashboard`)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await page.waitForLoadState('networkidle')
    expect(chartCode).toEqual([])

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Progress' }).click()
    await expect(page).toHaveURL(`${base}/progress`)
    await expect(page.getByRole('heading', { level: 1, name: 'Your Progress' })).toBeFocused()
    await expect(page.getByRole('link', { name: 'Progress' })).toHaveAttribute('aria-current', 'page')

    for (const chart of CHARTS) {
      const region = page.getByRole('region', { name: chart })
      await expect(region.getByRole('heading', { level: 2, name: chart })).toBeVisible()
      // The chart's SVG, named by its title (recharts' keyboard layer makes it an application).
      await expect(region.getByRole('application', { name: chart, exact: false })).toBeVisible()
      await expect(region.locator('.recharts-bar-rectangle, .recharts-line-curve').first()).toBeVisible()
    }
    expect(chartCode).toHaveLength(1)
    await expect(page.getByRole('region', { name: 'Calls per Week' })).toContainText('4 calls completed in these 12 weeks.')
    await expect(page.getByRole('region', { name: 'Commitments Kept' })).toContainText('2 commitments kept and 1 missed in these weeks.')

    const calls = await openTable(page, 'Calls per Week')
    await expect(calls.getByRole('row')).toHaveCount(13)
    await expect(cells(calls, 'Sep 28 – Oct 4, 2026')).toHaveText(['1', '0', '3'])
    await expect(cells(calls, 'Nov 2 – Nov 8, 2026')).toHaveText(['2', '1', '9'])
    await expect(cells(calls, 'Nov 9 – Nov 15, 2026 (so far)')).toHaveText(['1', '0', '10'])
    await expect(cells(calls, 'Aug 24 – Aug 30, 2026')).toHaveText(['0', '0', '0'])

    const mood = await openTable(page, 'Mood over Time')
    await expect(cells(mood, 'Sep 28 – Oct 4, 2026')).toHaveText(['5 out of 10'])
    await expect(cells(mood, 'Nov 2 – Nov 8, 2026')).toHaveText(['7 out of 10'])
    await expect(cells(mood, 'Nov 9 – Nov 15, 2026 (so far)')).toHaveText(['4 out of 10'])
    await expect(cells(mood, 'Oct 26 – Nov 1, 2026')).toHaveText(['No mood recorded'])

    const areas = await openTable(page, 'Life Area Coverage')
    await expect(areas.getByRole('row')).toHaveCount(9)
    await expect(cells(areas, 'Fitness & Health')).toHaveText(['2', '7/10'])
    await expect(cells(areas, 'Family Relationships')).toHaveText(['1', '3/10'])
    await expect(cells(areas, 'Finance')).toHaveText(['1', 'Not rated'])
    await expect(cells(areas, 'Faith')).toHaveText(['1', 'Not rated'])
    await expect(cells(areas, 'Service to Others')).toHaveText(['0', 'Not rated'])

    const kept = await openTable(page, 'Commitments Kept')
    await expect(cells(kept, 'Nov 2 – Nov 8, 2026')).toHaveText(['2', '0'])
    await expect(cells(kept, 'Nov 9 – Nov 15, 2026 (so far)')).toHaveText(['0', '1'])

    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('a Basic member sees the upgrade message instead of charts, and no chart code loads', async ({ page, context }) => {
    await page.clock.setFixedTime(START)
    await signIn(context, 'basic')
    const chartCode: string[] = []
    page.on('request', (request) => {
      if (/progress-charts-[^/]*\.js$/.test(request.url())) chartCode.push(request.url())
    })

    await page.goto(`${base}/progress`)
    await expect(page.getByRole('heading', { level: 1, name: 'Your Progress' })).toBeVisible()
    await expect(page.getByRole('heading', { level: 2, name: 'Detailed analytics come with Premium and Elite' })).toBeVisible()
    await expect(page.getByText('Upgrade to Premium or Elite to see charts of your calls, mood, life areas and commitments over the last twelve weeks.')).toBeVisible()
    await expect(page.getByRole('main').getByRole('link', { name: 'Compare Plans' })).toHaveAttribute('href', '/payment')
    for (const chart of CHARTS) await expect(page.getByRole('region', { name: chart })).toHaveCount(0)
    await expect(page.locator('.recharts-surface')).toHaveCount(0)
    expect(chartCode).toEqual([])
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
