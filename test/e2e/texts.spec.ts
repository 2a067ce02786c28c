import { SMS_WEBHOOK_PATH } from '#common/webhooks'
import { FakeTwilio } from '../fakes/twilio'
import { startAppServer, type AppServer } from './support/app-server'
import { seriousA11yViolations } from './support/a11y'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * Texts in the browser (issue 15): a server pointed at the Twilio fake, whose inbound texts reach
 * the server's webhook signed as Twilio signs them.
 */

const SMS_NUMBER = '+15555550123'

test.describe('texts', () => {
  test.describe.configure({ mode: 'default' })
  let fake: FakeTwilio
  let server: AppServer

  test.beforeAll(async () => {
    test.setTimeout(90_000)
    fake = await FakeTwilio.start({ numbers: [SMS_NUMBER] })
    server = await startAppServer(fake.env(SMS_NUMBER))
    fake.webhookUrl = `${server.baseUrl}${SMS_WEBHOOK_PATH}`
  })

  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  test('the opt-in screen moves on by itself when the START text from the person’s phone arrives', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', origin: server.baseUrl, phoneNumber: '2025675309' })
    // The screen listens once its event stream answers.
    const listening = page.waitForResponse((response) => response.url().endsWith('/api/opt-in/events') && response.status() === 200)
    await page.goto(`${server.baseUrl}/opt-in`)
    await expect(page.getByRole('heading', { name: 'Get updates by text' })).toBeVisible()
    await listening
    expect(await seriousA11yViolations(page)).toEqual([])

    const delivery = await fake.inbound({ from: '+12025675309', body: 'Start' })
    expect(delivery.status).toBe(200)
    await expect(page.getByRole('status').filter({ hasText: 'Your START text arrived' })).toBeVisible()
    await expect(page.getByRole('button', { name: "I've completed this step" })).toBeDisabled()
    expect(await seriousA11yViolations(page)).toEqual([])
    await expect(page).toHaveURL(`${server.baseUrl}/goal-intake`, { timeout: 10_000 })
    // The server answered the START with its confirmation, by text.
    expect(fake.repliesTo('+12025675309').map((message) => message.body).join(' ')).toContain('You will now get coaching texts')
  })

  test('a STOP text turns calls and texts off in the app’s settings and in the consent history, and only a START from the phone lets the switch bring calls back', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', origin: server.baseUrl, phoneNumber: '2025340001' })
    await fake.inbound({ from: '+12025340001', body: 'START' })
    // A call time, so that the calls switch can be used.
    const saved = await page.request.put(`${server.baseUrl}/api/calls/schedule`, {
      headers: { origin: server.baseUrl },
      data: { dailyCallTime: '07:30', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled: true },
    })
    expect(saved.status()).toBe(200)
    await page.goto(`${server.baseUrl}/calls/schedule`)
    const consent = page.getByRole('region', { name: 'Texts and consent' })
    await expect(consent.getByTestId('texts-state')).toHaveText('On')

    const stop = await fake.inbound({ from: '+12025340001', body: 'STOP' })
    expect(stop.reply).toContain('no more texts or coaching calls')
    await page.reload()
    await expect(page.getByRole('switch', { name: 'Daily coaching calls' })).not.toBeChecked()
    await expect(consent.getByTestId('texts-state')).toHaveText('Off')
    await expect(consent.getByText('To get texts, text START to')).toBeVisible()
    const history = consent.getByRole('list', { name: 'Consent history' }).getByRole('listitem')
    await expect(history.nth(0)).toContainText('Coaching calls turned off by text message')
    await expect(history.nth(1)).toContainText('Texts turned off by text message')
    await expect(history.nth(0)).toContainText('“STOP”')
    await expect(history.nth(2)).toContainText('Texts turned on by text message')
    await expect(history.last()).toContainText('Coaching calls turned on at sign-up')
    expect(await seriousA11yViolations(page)).toEqual([])

    // The STOP belongs to the phone: the app's switch cannot bring calls back, and says why.
    const calls = page.getByRole('switch', { name: 'Daily coaching calls' })
    await expect(calls).toBeDisabled()
    await expect(page.getByTestId('calls-number-note')).toHaveText('This number texted STOP. Text START to (555) 555-0123 to turn calls and texts back on.')
    await expect(calls).toHaveAccessibleDescription(/This number texted STOP/)

    // A START from that phone lifts it; then calls come back from the app, and the history says so.
    await fake.inbound({ from: '+12025340001', body: 'START' })
    await page.reload()
    await expect(calls).toBeEnabled()
    await expect(page.getByTestId('calls-number-note')).toHaveCount(0)
    await calls.focus()
    await page.keyboard.press('Space')
    await expect(calls).toBeChecked()
    await expect(history.nth(0)).toContainText('Coaching calls turned on in your settings')
  })
})
