import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { chromium, type Page } from '@playwright/test'
import { CHAT_ERRORS, CHAT_TEXT } from '#common/chat'
import { FakeVapi } from '../fakes/vapi'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * A voice call in the chat (issue 14), in Chromium with a fake microphone: the browser captures
 * through its AudioWorklet and talks to our gateway (`/api/voice`), which talks to the Vapi fake's
 * WebSocket transport. The fake hears the microphone's burst of sound followed by silence as the
 * user's turn and answers with transcripts and audio; the greeting and the replies come back
 * through the playback worklet.
 */

const USER_WORDS = 'I want to run three times this week.'
const TYPED = 'Remind me to stretch afterwards'

/**
 * The microphone: 16-bit PCM mono at 48 kHz, 3 s that Chromium loops: 0.7 s of a voiced,
 * speech-like sound (a 180 Hz buzz with its harmonics, four syllables a second), then silence.
 */
function microphoneWav(): string {
  const rate = 48_000
  const total = rate * 3
  const sound = Math.round(rate * 0.7)
  const data = Buffer.alloc(total * 2)
  for (let i = 0; i < sound; i++) {
    const t = i / rate
    let value = 0
    for (let harmonic = 1; harmonic <= 12; harmonic++) value += Math.sin(2 * Math.PI * 180 * harmonic * t + harmonic) / harmonic
    value *= 0.25 * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t)) * Math.min(1, i / 480, (sound - i) / 480)
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(value * 32767))), i * 2)
  }
  const header = Buffer.alloc(44)
  header.write('RIFF', 0)
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVE', 8)
  header.write('fmt ', 12)
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36)
  header.writeUInt32LE(data.length, 40)
  const path = join(mkdtempSync(join(tmpdir(), 'mc-e2e-voice-')), 'microphone.wav')
  writeFileSync(path, Buffer.concat([header, data]))
  return path
}

/** The suite's Chromium flags (playwright.config.ts), to which a spec adds the fake microphone's. */
const BASE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [...BASE_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${microphoneWav()}`],
  },
  permissions: ['microphone'],
})

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' })
const messages = (page: Page) => page.getByRole('log', { name: 'Messages' })
const conversationList = (page: Page) => page.getByRole('complementary', { name: 'Conversation history' }).getByRole('list', { name: 'Conversations' })
const toastWith = (page: Page, title: string, description?: string) => {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: title })
  return description ? toast.filter({ hasText: description }) : toast
}
/** A line of the conversation, as the list shows it (the speaker is named for screen readers). */
const line = (page: Page, who: 'you' | 'coach', text: string) => messages(page).getByText(`${who === 'you' ? 'You' : 'Coach'} said: ${text}`, { exact: true })
/** Assistant audio the playback worklet has played in this call, in ms. */
const playedMs = async (page: Page) => Number((await page.locator('[data-voice-played-ms]').getAttribute('data-voice-played-ms')) ?? '0')

test.describe('a voice call in the chat', () => {
  test.describe.configure({ timeout: 90_000 })

  let fake: FakeVapi
  let server: AppServer

  test.beforeAll(async () => {
    test.setTimeout(90_000)
    fake = await FakeVapi.start({ transport: { userTranscripts: [USER_WORDS] } })
    server = await startAppServer({ VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_e2e_voice', VAPI_API_URL: fake.url })
  })

  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  test('talk to the coach: greeting, your words and the reply as transcripts, its voice played, mute, typing into the call, end, saved', async ({ page }) => {
    const base = server.baseUrl
    await signUpViaApi(page, { paid: 'basic', fullName: 'Riley Chen', origin: base })
    await page.goto(`${base}/chat`)

    const callsBefore = fake.transport.allStats().length
    const voice = page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })
    await expect(voice).toHaveAttribute('title', CHAT_TEXT.startVoiceCall)
    await voice.focus()
    await page.keyboard.press('Enter')

    // Listening: the toast, the button now ends the call, the placeholder says typing still works.
    await expect(toastWith(page, 'Voice Active', 'Voice assistant is now listening. Click the microphone again to end the call.')).toBeVisible()
    const end = page.getByRole('button', { name: CHAT_TEXT.endVoiceCall })
    await expect(end).toHaveAttribute('title', CHAT_TEXT.endVoiceCall)
    await expect(end).toBeEnabled()
    await expect(messageBox(page)).toHaveAttribute('placeholder', CHAT_TEXT.inputPlaceholderListening)
    await expect(page.getByRole('meter', { name: 'Microphone level' })).toBeVisible()
    const calls = fake.transport.allStats()
    expect(calls).toHaveLength(callsBefore + 1)
    const callId = calls.at(-1)?.callId

    // The greeting is said (the gateway's first message, with the member's name), shown as the
    // coach's line, and its audio reaches the speaker.
    await expect(messages(page).getByText("Hi Riley, it's your AI coach", { exact: false })).toBeVisible()
    await expect.poll(() => playedMs(page)).toBeGreaterThan(0)

    // The microphone's sound, then its silence, is the user's turn: their words, then the reply.
    await expect(line(page, 'you', USER_WORDS)).toBeVisible()
    await expect(line(page, 'coach', `echo:${USER_WORDS}`)).toBeVisible()
    // The microphone keeps repeating itself: the same words are shown once (spec 2 §5).
    await expect.poll(() => fake.transport.stats(callId!)?.userTurns ?? 0, { timeout: 15_000 }).toBeGreaterThan(1)
    await expect(line(page, 'you', USER_WORDS)).toHaveCount(1)
    await expect(line(page, 'coach', `echo:${USER_WORDS}`)).toHaveCount(1)
    expect(await seriousA11yViolations(page)).toEqual([])

    // The header's toggle mutes the coach's voice here and at Vapi.
    const responses = page.getByRole('button', { name: 'Voice responses' })
    await responses.click()
    await expect(toastWith(page, CHAT_ERRORS.audioDisabledTitle, CHAT_ERRORS.audioDisabled)).toBeVisible()
    await expect.poll(() => fake.transport.stats(callId!)?.controls ?? []).toContain('mute-assistant')
    await responses.click()
    await expect(toastWith(page, CHAT_ERRORS.audioEnabledTitle, CHAT_ERRORS.audioEnabled)).toBeVisible()
    await expect.poll(() => fake.transport.stats(callId!)?.controls ?? []).toContain('unmute-assistant')

    // Typing while listening goes into the call; the coach answers by voice, its words shown.
    await messageBox(page).fill(TYPED)
    await messageBox(page).press('Enter')
    await expect(line(page, 'you', TYPED)).toBeVisible()
    await expect.poll(() => fake.transport.stats(callId!)?.addMessages.map((message) => message.content) ?? []).toContain(TYPED)
    await expect(line(page, 'coach', `echo:${TYPED}`)).toBeVisible()

    // Ending: confirmed by the server, every flag reset, the call saved as a conversation.
    await page.getByRole('button', { name: CHAT_TEXT.endVoiceCall }).click()
    await expect(toastWith(page, 'Call Ended', 'Voice call has been ended.')).toBeVisible()
    await expect(page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })).toBeEnabled()
    await expect(page.getByRole('meter', { name: 'Microphone level' })).toHaveCount(0)
    await expect(messageBox(page)).toHaveAttribute('placeholder', CHAT_TEXT.inputPlaceholder)
    expect(fake.transport.stats(callId!)?.endCallReceived).toBe('socket')
    await expect(line(page, 'coach', 'Voice call ended. The conversation has been processed.')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
    await expect(conversationList(page).getByRole('listitem').filter({ hasText: USER_WORDS.slice(0, 30) })).toBeVisible()
    // What was saved, as the server holds it: each final once.
    await expect(line(page, 'you', USER_WORDS)).toHaveCount(1)
    await expect(line(page, 'you', TYPED)).toHaveCount(1)
    await expect(line(page, 'coach', `echo:${TYPED}`)).toHaveCount(1)
  })

  test("a refused or missing microphone says 'Voice Error' - 'Failed to start voice input.' and leaves the call idle", async () => {
    // A browser of its own without the fake microphone and without the permission.
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BASE_ARGS })
    try {
      const page = await (await browser.newContext({ permissions: [] })).newPage()
      const base = server.baseUrl
      const callsBefore = fake.transport.allStats().length
      await signUpViaApi(page, { paid: 'basic', fullName: 'Sam Ortiz', origin: base })
      await page.goto(`${base}/chat`)
      await page.getByRole('button', { name: CHAT_TEXT.startVoiceCall }).click()
      await expect(toastWith(page, 'Voice Error', 'Failed to start voice input.')).toBeVisible()
      await expect(page.getByRole('button', { name: CHAT_TEXT.startVoiceCall })).toBeEnabled()
      await expect(messageBox(page)).toHaveAttribute('placeholder', CHAT_TEXT.inputPlaceholder)
      // Nothing reached Vapi.
      expect(fake.transport.allStats()).toHaveLength(callsBefore)
    } finally {
      await browser.close()
    }
  })
})
