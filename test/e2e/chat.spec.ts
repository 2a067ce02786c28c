import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { CHAT_ERRORS, CHAT_TEXT, MESSAGE_PAGE_SIZE } from '#common/chat'
import { formatSse } from '#common/sse'
import { ERRORS } from '#common/errors'
import { FakeVapi } from '../fakes/vapi'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test, uniqueEmail } from './support/fixtures'
import { confirmEmailViaApi, signUpViaApi } from './support/users'

/**
 * The assistant chat (spec 2 §2 "Assistant chat", §4, §8) in Chromium: against the default e2e
 * server (no Vapi: the fallback coach answers), and against a second server of our own started
 * with VAPI_API_KEY / VAPI_ASSISTANT_ID / VAPI_API_URL pointing at the fake Vapi.
 */

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' })
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send message' })
const history = (page: Page) => page.getByRole('complementary', { name: 'Conversation history' })
const conversationList = (page: Page) => history(page).getByRole('list', { name: 'Conversations' })
const typing = (page: Page) => page.getByRole('status', { name: 'Coach is typing' })
const messages = (page: Page) => page.getByRole('log', { name: 'Messages' })
const toastWith = (page: Page, title: string, description?: string) => {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: title })
  return description ? toast.filter({ hasText: description }) : toast
}
const row = (page: Page, title: string): Locator => conversationList(page).getByRole('listitem').filter({ has: page.getByRole('button', { name: `Rename "${title}"` }) })

async function sendMessage(page: Page, text: string) {
  await messageBox(page).fill(text)
  await messageBox(page).press('Enter')
}

test.describe('assistant chat with the fallback coach (no Vapi configured)', () => {
  test('a paid user chats with the built-in coach, sees the typing indicator and the reply, and the chat is saved', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/chat')

    await expect(page.getByRole('heading', { level: 1, name: 'Hi Jordan! How can I help you today?' })).toBeVisible()
    await expect(history(page).getByText(CHAT_TEXT.noConversations)).toBeVisible()
    await expect(page.getByRole('searchbox', { name: 'Search conversations' })).toHaveAttribute('placeholder', CHAT_TEXT.searchPlaceholder)
    await expect(messageBox(page)).toHaveAttribute('placeholder', CHAT_TEXT.inputPlaceholder)
    await expect(sendButton(page)).toBeDisabled()
    await expect(page.getByRole('button', { name: CHAT_TEXT.newChat })).toBeVisible()
    // The sidebar's and the chat header's own (spec 2 §2), beside the app's navigation, which has the same two.
    await expect(history(page).getByRole('button', { name: CHAT_TEXT.logOut })).toBeVisible()
    await expect(page.getByRole('main').getByRole('link', { name: CHAT_TEXT.courses })).toHaveAttribute('href', '/courses')
    expect(await seriousA11yViolations(page)).toEqual([])

    // Shift+Enter makes a new line; Enter sends.
    await messageBox(page).fill('Help me plan my mornings')
    await messageBox(page).press('Shift+Enter')
    await messageBox(page).pressSequentially('before work')
    await expect(messageBox(page)).toHaveValue('Help me plan my mornings\nbefore work')
    await expect(messages(page)).toHaveCount(0)
    await messageBox(page).press('Enter')

    await expect(typing(page)).toBeVisible()
    await expect(sendButton(page)).toBeDisabled()
    await expect(page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })).toBeDisabled()
    await expect(messages(page).getByText('You said: Help me plan my mornings')).toBeVisible()
    const reply = messages(page).getByText(/^Coach said: Good (morning|afternoon|evening), Jordan!/)
    await expect(reply).toBeVisible({ timeout: 10_000 })
    await expect(reply).toContainText('the full AI coach is not configured')
    await expect(typing(page)).toHaveCount(0)
    await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
    // Saved under the title rule: the first 50 characters of the first message plus '...'.
    await expect(conversationList(page).getByRole('button', { name: /^Help me plan my mornings before work\.\.\./ })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('messages the server did not get are saved by the timers and by New Chat, each exactly once', async ({ page }) => {
    test.setTimeout(60_000)
    await signUpViaApi(page, { paid: 'basic', fullName: 'Robin Park' })
    await page.goto('/chat')
    const isCreate = (url: string, method: string) => method === 'POST' && new URL(url).pathname === '/api/conversations'
    const isSave = (url: string, method: string) => method === 'PUT' && new URL(url).pathname.endsWith('/content')

    // No saved chat yet and saving fails: after 2 messages the chat is saved about 3 s later, with both.
    await page.route('**/api/conversations', (route) => (route.request().method() === 'POST' ? route.abort() : route.continue()))
    await sendMessage(page, 'Offline first thought')
    await expect(toastWith(page, CHAT_ERRORS.sendFailedTitle, CHAT_ERRORS.sendFailed)).toBeVisible()
    await sendMessage(page, 'Offline second thought')
    await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.connectionTrouble}`)).toHaveCount(2)
    const created = page.waitForRequest((request) => isCreate(request.url(), request.method()), { timeout: 15_000 })
    await page.unroute('**/api/conversations')
    expect((await created).postDataJSON()).toMatchObject({
      title: 'Offline first thought...',
      content: [{ text: 'Offline first thought', sender: 'user' }, { text: 'Offline second thought', sender: 'user' }],
    })
    await expect(row(page, 'Offline first thought...')).toBeVisible()

    // A saved chat: a message that never reached the server is saved 2 s after the change.
    await page.route('**/api/conversations/*/messages', (route) => route.abort())
    const saved = page.waitForRequest((request) => isSave(request.url(), request.method()), { timeout: 15_000 })
    await sendMessage(page, 'Lost in transit')
    expect((await saved).postDataJSON()).toEqual({ content: [expect.objectContaining({ text: 'Lost in transit', sender: 'user' })] })

    // New Chat saves what is unsaved first.
    const savedFirst = page.waitForRequest((request) => isSave(request.url(), request.method()), { timeout: 15_000 })
    await sendMessage(page, 'Saved before the new chat')
    await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.connectionTrouble}`)).toHaveCount(4)
    await page.getByRole('button', { name: CHAT_TEXT.newChat }).click()
    expect((await savedFirst).postDataJSON()).toEqual({ content: [expect.objectContaining({ text: 'Saved before the new chat' })] })
    await expect(page.getByRole('heading', { level: 1, name: 'Hi Robin! How can I help you today?' })).toBeVisible()
    await page.unroute('**/api/conversations/*/messages')

    await page.reload()
    await row(page, 'Offline first thought...').getByRole('button', { name: /^Offline first thought/ }).click()
    for (const text of ['Offline first thought', 'Offline second thought', 'Lost in transit', 'Saved before the new chat']) {
      await expect(messages(page).getByText(`You said: ${text}`, { exact: true })).toHaveCount(1)
    }
    await expect(messages(page).getByRole('listitem').filter({ hasText: /said:/ })).toHaveCount(4)
  })

  test("a failed send shows the spec's text for its cause: timeout, assistant error, or network failure", async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Sky Reyes' })
    await page.goto('/chat')
    const sendFailedToast = toastWith(page, CHAT_ERRORS.sendFailedTitle, CHAT_ERRORS.sendFailed)

    // The server's answer once it has stored the message and the assistant failed: the stored
    // message, then an error event with the code and the message of common/errors.ts. Each is held
    // until the test releases it, so the waiting state can be seen first.
    const failWith = async (code: 'ASSISTANT_TIMEOUT' | 'ASSISTANT_UNAVAILABLE') => {
      let release = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      await page.route('**/api/conversations/*/messages', async (route) => {
        await held
        const { id, text } = route.request().postDataJSON() as { id: string; text: string }
        const message = { id, text, sender: 'user' as const, timestamp: new Date().toISOString() }
        await route.fulfill({
          status: 200,
          contentType: 'text/event-stream; charset=utf-8',
          body: formatSse('user', { type: 'user', message }) + formatSse('error', { type: 'error', error: { code, message: ERRORS[code].message } }),
        })
      })
      return release
    }

    await test.step("a timeout: the reply 'Timeout waiting for assistant response', no toast", async () => {
      const release = await failWith('ASSISTANT_TIMEOUT')
      await sendMessage(page, 'Are you there?')
      await expect(typing(page)).toBeVisible()
      release()
      await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.timeout}`, { exact: true })).toBeVisible()
      await expect(typing(page)).toHaveCount(0)
      await expect(sendFailedToast).toHaveCount(0)
      await expect(messages(page).getByText(CHAT_ERRORS.connectionTrouble)).toHaveCount(0)
      await page.unroute('**/api/conversations/*/messages')
    })

    await test.step("an assistant error: the reply \"I'm having trouble processing your message. Please try again.\", no toast", async () => {
      const release = await failWith('ASSISTANT_UNAVAILABLE')
      await sendMessage(page, 'Hello again')
      await expect(typing(page)).toBeVisible()
      release()
      await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.processingTrouble}`, { exact: true })).toBeVisible()
      await expect(sendFailedToast).toHaveCount(0)
      await expect(messages(page).getByText(CHAT_ERRORS.connectionTrouble)).toHaveCount(0)
      await page.unroute('**/api/conversations/*/messages')
    })

    await test.step("a network failure: the toast 'Error' - 'Failed to send message. Please try again.' and the connection-trouble reply", async () => {
      await page.route('**/api/conversations/*/messages', (route) => route.abort('internetdisconnected'))
      await sendMessage(page, 'Anyone?')
      await expect(sendFailedToast).toBeVisible()
      await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.connectionTrouble}`, { exact: true })).toBeVisible()
      await page.unroute('**/api/conversations/*/messages')
    })

    // Each text once, for its own cause.
    await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.timeout}`, { exact: true })).toHaveCount(1)
    await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.processingTrouble}`, { exact: true })).toHaveCount(1)
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('a long conversation opens on its newest messages; "Load earlier messages" (keyboard too) adds the ones before', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Avery Long' })
    const total = MESSAGE_PAGE_SIZE + 12
    const content = Array.from({ length: total }, (_, i) => ({
      id: `m${i + 1}`,
      text: `Note number ${i + 1}`,
      sender: 'user',
      timestamp: new Date(Date.UTC(2026, 10, 21, 12, 0, i)).toISOString(),
    }))
    const created = await page.request.post('/api/conversations', { headers: { origin: process.env.E2E_BASE_URL! }, data: { title: 'Long notes', content } })
    expect(created.status(), await created.text()).toBe(201)

    await page.goto('/chat')
    await row(page, 'Long notes').getByRole('button', { name: /^Long notes/ }).click()
    const said = (list: Locator) => list.getByRole('listitem').filter({ hasText: /said:/ })
    await expect(said(messages(page))).toHaveCount(MESSAGE_PAGE_SIZE)
    await expect(messages(page).getByText(`You said: Note number ${total}`, { exact: true })).toBeVisible()
    await expect(messages(page).getByText('You said: Note number 12', { exact: true })).toHaveCount(0)

    const loadEarlier = page.getByRole('button', { name: CHAT_TEXT.loadEarlier })
    await loadEarlier.focus()
    await page.keyboard.press('Enter')
    const earlier = page.getByRole('list', { name: 'Earlier messages' })
    await expect(said(earlier)).toHaveCount(12)
    await expect(loadEarlier).toHaveCount(0)
    await expect(earlier).toBeFocused()
    // Each message once, in order.
    const texts = await page.getByText(/^You said: Note number \d+$/).allTextContents()
    expect(texts.map((text) => Number(/Note number (\d+)/.exec(text)![1]))).toEqual(Array.from({ length: total }, (_, i) => i + 1))
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('the voice button says voice is not available; the audio toggle says what it did', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/chat')
    const voice = page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })
    await expect(voice).toHaveAttribute('title', 'Start voice call')
    await voice.click()
    await expect(toastWith(page, CHAT_ERRORS.voiceUnavailableTitle, CHAT_ERRORS.voiceUnavailable)).toBeVisible()

    const audio = page.getByRole('button', { name: 'Voice responses' })
    await expect(audio).toHaveAttribute('aria-pressed', 'true')
    await audio.click()
    await expect(toastWith(page, CHAT_ERRORS.audioDisabledTitle, CHAT_ERRORS.audioDisabled)).toBeVisible()
    await expect(audio).toHaveAttribute('aria-pressed', 'false')
    await audio.click()
    await expect(toastWith(page, CHAT_ERRORS.audioEnabledTitle, CHAT_ERRORS.audioEnabled)).toBeVisible()
  })

  test('on a phone the history opens and closes over an overlay', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 800 })
    await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/chat')
    await expect(history(page)).toBeHidden()
    await page.getByRole('button', { name: 'Open conversations' }).click()
    await expect(history(page)).toBeVisible()
    await expect(page.getByTestId('sidebar-overlay')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByTestId('sidebar-overlay').click({ position: { x: 370, y: 400 } })
    await expect(history(page)).toBeHidden()
    await page.getByRole('button', { name: 'Open conversations' }).click()
    await history(page).getByRole('button', { name: 'Close conversations' }).click()
    await expect(history(page)).toBeHidden()
  })
})

// ---------------------------------------------------------------------------------------------
// With Vapi: a second server of our own, configured against the fake.


let fake: FakeVapi
let server: AppServer | undefined
let base = ''

/** Signs a paid user up on our own server (its APP_URL is its own origin). */
async function signUpOn(page: Page, fullName: string) {
  const password = 'steady-maple-lantern-42'
  const email = uniqueEmail('chat')
  const signup = await page.request.post(`${base}/api/auth/signup`, {
    headers: { origin: base },
    data: { fullName, email, phoneNumber: '2025234567', password, confirmPassword: password, communicationConsent: true, termsAccepted: true },
  })
  expect(signup.status(), await signup.text()).toBe(201)
  await confirmEmailViaApi(page, email, base)
  const paid = await page.request.post(`${base}/api/billing/testing-activation`, { headers: { origin: base }, data: { plan: 'basic' } })
  expect(paid.status(), await paid.text()).toBe(200)
}

test.describe('assistant chat with Vapi (the fake)', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 })

  test.beforeAll(async () => {
    // Starting a server (tsx, migrations) can take a while on a busy machine.
    test.setTimeout(120_000)
    // A first token that takes a moment, so the typing indicator can be seen; words arrive one by one.
    fake = await FakeVapi.start({ firstTokenDelayMs: 700, deltaDelayMs: 15 })
    server = await startAppServer({ VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_e2e_coach', VAPI_API_URL: fake.url })
    base = server.baseUrl
  })

  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  test('sends, streams, saves, renames, searches, survives a reload and deletes', async ({ page }) => {
    await signUpOn(page, 'Casey Morgan')
    await page.goto(`${base}/chat`)
    await expect(page.getByRole('heading', { level: 1, name: 'Hi Casey! How can I help you today?' })).toBeVisible()

    const first = 'I keep skipping my morning workouts and I want a plan that sticks'
    const title = `${first.slice(0, 50)}...`
    await test.step('send: typing indicator, then the streamed reply from Vapi', async () => {
      await sendMessage(page, first)
      await expect(typing(page)).toBeVisible()
      await expect(messages(page).getByText(`Coach said: echo:${first}|name:Casey|`)).toBeVisible({ timeout: 10_000 })
      await expect(messages(page).getByText(/\|turn:1$/)).toBeVisible()
      await expect(typing(page)).toHaveCount(0)
      await expect(row(page, title)).toBeVisible()
      await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
    })

    await test.step('the next turn chains on the previous chat', async () => {
      await sendMessage(page, 'What about evenings?')
      await expect(messages(page).getByText(/^Coach said: echo:What about evenings\?\|name:Casey\|.*\|turn:2$/)).toBeVisible({ timeout: 10_000 })
      const bodies = fake.chatBodies()
      expect(bodies.at(-1)).toMatchObject({ input: 'What about evenings?', previousChatId: [...fake.chats.values()].at(-2)!.id, stream: true })
      for (const body of bodies) expect(body).toHaveProperty('assistantOverrides.variableValues.firstName', 'Casey')
    })

    await test.step("a failed reply keeps the message, answers the spec's text for an assistant error, and the next message works", async () => {
      fake.inject('POST /chat', { kind: 'status', status: 503 })
      await sendMessage(page, 'Are you still there?')
      await expect(messages(page).getByText(`Coach said: ${CHAT_ERRORS.processingTrouble}`)).toBeVisible()
      await expect(toastWith(page, CHAT_ERRORS.sendFailedTitle, CHAT_ERRORS.sendFailed)).toHaveCount(0)
      await expect(messages(page).getByText(CHAT_ERRORS.connectionTrouble)).toHaveCount(0)
      await sendMessage(page, 'Trying once more')
      await expect(messages(page).getByText(/^Coach said: echo:Trying once more\|/)).toBeVisible({ timeout: 10_000 })
    })

    await test.step('rename inline: Enter saves, Escape cancels, blur saves, empty is not saved', async () => {
      const titleField = page.getByRole('textbox', { name: 'Conversation title' })
      await row(page, title).getByRole('button', { name: `Rename "${title}"` }).click()
      await titleField.fill('Morning plan')
      await titleField.press('Enter')
      await expect(row(page, 'Morning plan')).toBeVisible()

      await row(page, 'Morning plan').getByRole('button', { name: 'Rename "Morning plan"' }).click()
      await titleField.fill('Not this one')
      await titleField.press('Escape')
      await expect(titleField).toHaveCount(0)
      await expect(row(page, 'Morning plan')).toBeVisible()

      await row(page, 'Morning plan').getByRole('button', { name: 'Rename "Morning plan"' }).click()
      await titleField.fill('Workout plan')
      await page.getByRole('searchbox', { name: 'Search conversations' }).click() // leaves the field
      await expect(row(page, 'Workout plan')).toBeVisible()

      await row(page, 'Workout plan').getByRole('button', { name: 'Rename "Workout plan"' }).click()
      await titleField.fill('   ')
      await titleField.press('Enter')
      await expect(row(page, 'Workout plan')).toBeVisible()
    })

    await test.step('search finds it by a word in a message', async () => {
      const search = page.getByRole('searchbox', { name: 'Search conversations' })
      await search.fill('evenings')
      await expect(row(page, 'Workout plan')).toBeVisible()
      await search.fill('quantum physics')
      await expect(history(page).getByText(CHAT_TEXT.noMatches)).toBeVisible()
      await search.fill('')
      await expect(row(page, 'Workout plan')).toBeVisible()
    })

    await test.step('after a reload every message is there exactly once; the error notice is not', async () => {
      await page.reload()
      await expect(page.getByRole('heading', { level: 1, name: 'Hi Casey! How can I help you today?' })).toBeVisible()
      await row(page, 'Workout plan').getByRole('button', { name: /^Workout plan/ }).click()
      await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
      const said = ['You said: ' + first, 'You said: What about evenings?', 'You said: Are you still there?', 'You said: Trying once more']
      for (const text of said) await expect(messages(page).getByText(text, { exact: true })).toHaveCount(1)
      await expect(messages(page).getByText(/^Coach said: echo:/)).toHaveCount(3)
      await expect(messages(page).getByRole('listitem').filter({ hasText: /said:/ })).toHaveCount(7)
      await expect(messages(page).getByText(CHAT_ERRORS.processingTrouble)).toHaveCount(0)
      expect(await seriousA11yViolations(page)).toEqual([])
    })

    await test.step('delete asks for confirmation; cancelling keeps it, confirming deletes it', async () => {
      const dialogs: string[] = []
      page.once('dialog', (dialog) => {
        dialogs.push(dialog.message())
        void dialog.dismiss()
      })
      await row(page, 'Workout plan').getByRole('button', { name: 'Delete "Workout plan"' }).click()
      await expect(row(page, 'Workout plan')).toBeVisible()
      page.once('dialog', (dialog) => {
        dialogs.push(dialog.message())
        void dialog.accept()
      })
      await row(page, 'Workout plan').getByRole('button', { name: 'Delete "Workout plan"' }).click()
      await expect(history(page).getByText(CHAT_TEXT.noConversations)).toBeVisible()
      expect(dialogs).toEqual([CHAT_TEXT.deleteConfirm, CHAT_TEXT.deleteConfirm])
      // The open conversation was the deleted one: back to a new chat.
      await expect(page.getByRole('heading', { level: 1, name: 'Hi Casey! How can I help you today?' })).toBeVisible()
    })
  })
})
