import { CHAT_EXTRACTION_PROMPT } from '#server/services/memory'
import { seriousA11yViolations } from './support/a11y'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * One coach memory across channels (issue 37, docs/decisions/083), end to end: a member tells the
 * coach about themselves in the chat; once the chat has been quiet for 10 minutes the extraction
 * job asks the chat assistant (the Vapi fake, whose scripted extraction stands in for the model)
 * and the facts show on /memory with where they came from; the member corrects one and deletes
 * another; the next phone call's variables carry the corrected fact in `coachBrief`, and neither
 * the replaced nor the deleted one. The server is the production app on a test clock with the Vapi
 * fake on the same clock (support/clocked-server.ts): nothing waits for real time.
 */

/** Monday 15 June 2026, 9:00 AM in New York (EDT, UTC−4). */
const START = new Date('2026-06-15T13:00:00Z')
/** 10:00 AM in New York that day: the member's daily call. */
const CALL_AT = new Date('2026-06-15T14:00:00Z')
const minutesAfter = (instant: Date, minutes: number) => new Date(instant.getTime() + minutes * 60_000)

const GOALS = {
  areas: {
    faith: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    family: { selectedOptions: ['quality_time'], satisfactionScore: 4, customNotes: '' },
    fitness: { selectedOptions: ['exercise_routine'], satisfactionScore: 3, customNotes: '' },
    finance: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    friends: { selectedOptions: [], satisfactionScore: 8, customNotes: '' },
    fun: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    service: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    personal_development: { selectedOptions: [], satisfactionScore: 5, customNotes: '' },
  },
  workCareer: { company: null, industry: 'education', role: 'Teacher' },
  specificGoals: { goal90Days: 'Run a 10k', goal12Months: 'Run a half marathon', goal5Years: 'Run a marathon', obstacles: 'Early mornings' },
  callTime: { time: '10:00', period: 'AM', timezone: 'eastern' },
}

/** What the model answers to the extraction turn of this member's chat. */
const EXTRACTION = JSON.stringify({
  summary: 'Sam talked about their daughter starting school and their running plans.',
  factsLearned: [
    { statement: 'Their daughter starts school on Monday', subject: 'family', stated: true },
    { statement: 'Training for a 10k in April', subject: 'fitness', stated: true },
    { statement: 'Prefers calls before work', subject: 'preferences', stated: true },
  ],
  factsChanged: [],
})

test.use({ timezoneId: 'America/New_York', locale: 'en-US' })

test.describe('what your coach remembers', () => {
  test.describe.configure({ timeout: 120_000 })

  let server: ClockedAppServer | undefined

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    server = await startClockedAppServer({
      start: START,
      env: { VAPI_ASSISTANT_ID: 'asst_e2e_memory', VAPI_PHONE_NUMBER_ID: 'phone_e2e_memory', VAPI_WEBHOOK_SECRET: 'e2e-memory-webhook-secret-0123456789abcdef' },
    })
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('what a member says in the chat shows on /memory, is corrected and deleted there, and the next phone call knows it', async ({ page }) => {
    const app = server!
    const base = app.baseUrl
    await page.clock.setFixedTime(await app.now())

    await signUpViaApi(page, { paid: 'premium', fullName: 'Sam Ortiz', origin: base, verified: true, logFile: app.logFile })
    const saved = await page.request.put(`${base}/api/goals`, { headers: { origin: base }, data: GOALS })
    expect(saved.status(), await saved.text()).toBe(200)

    // The account page leads to the memory. Nothing remembered yet: the empty state, and the pause switch off.
    await page.goto(`${base}/account`)
    await page.getByRole('region', { name: 'What your coach remembers' }).getByRole('link', { name: 'See what your coach remembers' }).click()
    await expect(page).toHaveURL(`${base}/memory`)
    await expect(page.getByRole('heading', { level: 1, name: 'What your coach remembers' })).toBeVisible()
    await expect(page.getByText('Your coach has not remembered anything yet.')).toBeVisible()
    await expect(page.getByRole('switch', { name: 'Pause memory: your coach works from your goals only' })).not.toBeChecked()
    expect(await seriousA11yViolations(page)).toEqual([])

    // The member tells the coach about their week in the chat.
    await app.scriptChatReply(CHAT_EXTRACTION_PROMPT.split('\n')[0]!, EXTRACTION)
    await page.goto(`${base}/chat`)
    const messageBox = page.getByRole('textbox', { name: 'Message' })
    await messageBox.fill('My daughter starts school on Monday, and I am training for a 10k in April. Call me before work, please.')
    await messageBox.press('Enter')
    await expect(page.getByRole('log', { name: 'Messages' }).getByText(/^Coach said: /)).toBeVisible({ timeout: 10_000 })

    // Ten quiet minutes later the extraction runs: one turn of the chat assistant with the fixed prompt.
    await app.advanceTo(minutesAfter(START, 11))
    await page.clock.setFixedTime(await app.now())

    // The chat links to the memory.
    await page.getByRole('complementary', { name: 'Conversation history' }).getByRole('link', { name: 'What your coach remembers' }).click()
    await expect(page).toHaveURL(`${base}/memory`)
    const facts = page.getByRole('region', { name: 'Facts' })
    const fact = (words: string) => facts.getByRole('listitem').filter({ hasText: words })
    await expect(facts.getByRole('heading', { level: 3 })).toHaveText(['Family Relationships', 'Fitness & Health', 'How you like to be coached'])
    for (const words of ['Their daughter starts school on Monday', 'Training for a 10k in April', 'Prefers calls before work']) {
      await expect(fact(words)).toContainText('from your chat on Mon, Jun 15')
    }
    const conversations = page.getByRole('region', { name: 'Conversations' })
    await expect(conversations.getByRole('listitem')).toHaveCount(1)
    await expect(conversations).toContainText('Chat, Mon, Jun 15')
    await expect(conversations).toContainText('Sam talked about their daughter starting school and their running plans.')
    expect(await seriousA11yViolations(page)).toEqual([])

    // Correct: the race moved. The form is labelled and works from the keyboard.
    await fact('Training for a 10k in April').getByRole('button', { name: 'Correct: Training for a 10k in April' }).click()
    const field = page.getByRole('textbox', { name: 'What your coach should remember' })
    await expect(field).toBeFocused()
    await expect(field).toHaveValue('Training for a 10k in April')
    expect(await seriousA11yViolations(page)).toEqual([])
    await field.fill('')
    await field.press('Enter')
    await expect(field).toHaveAccessibleDescription(/Write what your coach should remember\./)
    await field.fill('Moved the 10k race to May')
    await field.press('Enter')
    await expect(page.locator('[data-sonner-toast]').filter({ hasText: 'Corrected' })).toBeVisible()
    await expect(fact('Moved the 10k race to May')).toContainText('from your correction on Mon, Jun 15')
    await expect(facts).not.toContainText('Training for a 10k in April')

    // Delete: asked once, then gone.
    await fact('Prefers calls before work').getByRole('button', { name: 'Delete: Prefers calls before work' }).click()
    await fact('Prefers calls before work').getByRole('button', { name: 'Yes, delete it' }).click()
    await expect(page.locator('[data-sonner-toast]').filter({ hasText: 'Deleted for good' })).toBeVisible()
    await expect(facts).not.toContainText('Prefers calls before work')
    await expect(facts.getByRole('heading', { level: 3 })).toHaveText(['Family Relationships', 'Fitness & Health'])
    expect(await seriousA11yViolations(page)).toEqual([])

    // The same after a reload (stored, not only shown).
    await page.reload()
    await expect(fact('Moved the 10k race to May')).toBeVisible()
    await expect(fact('Their daughter starts school on Monday')).toBeVisible()
    await expect(facts.getByRole('listitem')).toHaveCount(2)

    // "Delete everything" asks in a dialog; cancelled, nothing changes.
    await page.getByRole('button', { name: 'Delete everything' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete everything your coach remembers?' })
    await expect(dialog).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(facts.getByRole('listitem')).toHaveCount(2)

    // The next phone call: its variables carry the memory as the member left it.
    await app.advanceTo(CALL_AT)
    const dials = await app.vapiCalls()
    expect(dials).toHaveLength(1)
    const brief = String(dials[0]!.assistantOverrides?.variableValues?.coachBrief ?? '')
    expect(brief).toContain('Their daughter starts school on Monday')
    expect(brief).toContain('Moved the 10k race to May')
    expect(brief).not.toContain('Training for a 10k in April')
    expect(brief).not.toContain('Prefers calls before work')

    // Delete everything, confirmed in the dialog: the memory is empty.
    await page.clock.setFixedTime(await app.now())
    await page.getByRole('button', { name: 'Delete everything' }).click()
    await dialog.getByRole('button', { name: 'Yes, delete everything' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(page.getByText('Your coach has not remembered anything yet.')).toBeVisible()
    await page.reload()
    await expect(page.getByText('Your coach has not remembered anything yet.')).toBeVisible()
    await expect(page.getByRole('region', { name: 'Facts' })).toHaveCount(0)

    // Pausing the memory is a switch (Space toggles it); it stays paused after a reload.
    const pause = page.getByRole('switch', { name: 'Pause memory: your coach works from your goals only' })
    await pause.focus()
    await page.keyboard.press('Space')
    await expect(page.locator('[data-sonner-toast]').filter({ hasText: 'Memory paused' })).toBeVisible()
    await page.reload()
    await expect(pause).toBeChecked()
    await expect(page.getByText('keeps nothing new while memory is paused')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
