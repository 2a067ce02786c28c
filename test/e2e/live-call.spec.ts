import AxeBuilder from '@axe-core/playwright'
import type { Page, WebSocket } from '@playwright/test'
import { startClockedAppServer, type ClockedAppServer } from './support/clocked-app'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * Watching a phone call live (issue 14): a member's dashboard is open when the coach's daily call
 * is placed by the Vapi fake. The "Live call" card shows it ringing, then in progress, with each
 * final transcript line as it is said; the member ends it with "End call" (through the gateway,
 * which ends it through Vapi's call control), and the card says it ended. The server is the
 * production app on a test clock with the fake in its process (support/clocked-server.ts); the
 * fake holds the call before its end, so it stays in progress until the member ends it.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/** Monday 15 June 2026, 9:55 AM in New York (EDT, UTC−4). */
const START = new Date('2026-06-15T13:55:00Z')
/** 10:00 AM in New York: the member's call time. */
const CALL_AT = new Date('2026-06-15T14:00:00Z')

const GOALS = {
  areas: {
    faith: { selectedOptions: [], satisfactionScore: 8, customNotes: '' },
    family: { selectedOptions: ['quality_time'], satisfactionScore: 3, customNotes: '' },
    fitness: { selectedOptions: [], satisfactionScore: 7, customNotes: '' },
    finance: { selectedOptions: ['pay_off_debt'], satisfactionScore: 2, customNotes: '' },
    friends: { selectedOptions: [], satisfactionScore: 9, customNotes: '' },
    fun: { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    service: { selectedOptions: [], satisfactionScore: 4, customNotes: '' },
    personal_development: { selectedOptions: [], satisfactionScore: 5, customNotes: '' },
  },
  workCareer: { company: null, industry: 'education', role: 'Teacher' },
  specificGoals: { goal90Days: 'Pay off the credit card', goal12Months: 'Save three months of expenses', goal5Years: 'Buy a home', obstacles: 'Impulse spending' },
  callTime: { time: '10:00', period: 'AM', timezone: 'eastern' },
}

test.use({ timezoneId: 'America/New_York', locale: 'en-US' })

test.describe('a phone call, watched live on the dashboard', () => {
  test.describe.configure({ timeout: 120_000 })

  let server: ClockedAppServer | undefined
  let base = ''

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    server = await startClockedAppServer({
      start: START,
      env: { VAPI_ASSISTANT_ID: 'asst_e2e_live_call', VAPI_PHONE_NUMBER_ID: 'phone_e2e_live_call', VAPI_WEBHOOK_SECRET: 'e2e-live-call-webhook-secret-0123456789abcdef' },
    })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
  })

  test('the card shows the call ringing, then in progress with its transcript, and ended from the dashboard', async ({ page }) => {
    const app = server!
    await page.clock.setFixedTime(await app.now())
    await signUpViaApi(page, { paid: 'basic', fullName: 'Avery Brooks', origin: base, verified: true, logFile: app.logFile })
    const saved = await page.request.put(`${base}/api/goals`, { headers: { origin: base }, data: GOALS })
    expect(saved.status(), await saved.text()).toBe(200)
    // The fake keeps the call ringing, then in progress once everything before its end was said.
    await app.holdCalls('status-update:in-progress')

    // The dashboard opens its socket to the gateway and watches the member's calls.
    const socketOpened = page.waitForEvent('websocket', (ws) => new URL(ws.url()).pathname === '/api/voice')
    await page.goto(`${base}/dashboard`)
    const socket: WebSocket = await socketOpened
    const received: string[] = []
    socket.on('framereceived', (frame) => received.push(String(frame.payload)))
    await socket.waitForEvent('framesent', { predicate: (frame) => String(frame.payload).includes('"watch-calls"') })
    await expect(page.getByRole('region', { name: 'Next call' }).getByTestId('next-call-when')).toHaveText('Today, 10:00 AM Eastern')
    // No call yet: no card.
    await expect(page.getByRole('region', { name: 'Live call' })).toHaveCount(0)

    // 10:00: the coach calls; the member's phone rings.
    await app.advanceTo(CALL_AT)
    const held = await app.callHeld('status-update:in-progress')
    const card = page.getByRole('region', { name: 'Live call' })
    await expect(card).toBeVisible()
    await expect(card.getByRole('status')).toHaveText('Ringing…')
    await expect(card.getByText('What you and your coach say appears here as you talk.')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    // The member answers and they talk; each line appears as it is said.
    await app.holdCalls('status-update:ended')
    await app.releaseCalls('status-update:in-progress')
    await app.callHeld('status-update:ended')
    await expect(card.getByRole('status')).toHaveText('In progress')
    const transcript = card.getByRole('log', { name: 'Live transcript' })
    await expect(transcript.getByRole('listitem')).toHaveText([
      /^Coach: Hi Avery, this is your Momentum coach/,
      /^You: Pretty good, about a \d+ out of 10\./,
      /^Coach: Great\. What is one thing you will do before we talk again\?$/,
      /^You: ./,
      /^Coach: Sounds like a plan\. Talk soon, Avery!$/,
    ])
    expect(await seriousA11yViolations(page)).toEqual([])

    // The member ends the call from the keyboard.
    const endCall = card.getByRole('button', { name: 'End call' })
    await endCall.focus()
    await expect(endCall).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(card.getByRole('status')).toHaveText('Call ended: you hung up')
    const [call] = await app.vapiCalls()
    expect(call).toMatchObject({ id: held.callId, status: 'ended', endedReason: 'customer-ended-call' })

    // The dashboard's calls now list it, completed; the card's own link leads to it.
    const recentCalls = page.getByRole('region', { name: 'Recent Coaching Calls' })
    await expect(recentCalls.getByTestId('call-row')).toHaveCount(1)
    await expect(recentCalls.getByTestId('call-row').getByText('completed', { exact: true })).toBeVisible()
    await expect(card.getByRole('link', { name: 'View call details' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await card.getByRole('button', { name: 'Dismiss' }).click()
    await expect(card).toHaveCount(0)

    // Nothing of Vapi's reached the browser: no call id, no key, no fake address, no call URL.
    expect(received.length).toBeGreaterThan(0)
    for (const frame of received) {
      expect(frame).not.toContain(held.callId)
      expect(frame).not.toMatch(/vapi|control|monitor|listen/i)
    }
  })
})
