import AxeBuilder from '@axe-core/playwright'
import { chromium, type Page } from '@playwright/test'
import { CHAT_ERRORS, CHAT_TEXT } from '#common/chat'
import { FakeVapi } from '../fakes/vapi'
import { startAppServer, type AppServer } from './support/app-server'
import { CHROMIUM_ARGS, CHROMIUM_PATH, fakeMicrophone, wavFile } from './support/chromium'
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
  return wavFile(data, rate)
}

test.use(fakeMicrophone(microphoneWav()))

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

/** The playback worklet's counters of the assistant's audio in this call, in ms (the voice button's data-voice-*-ms). */
type Playback = { receivedMs: number; playedMs: number; flushedMs: number; droppedMs: number; bufferedMs: number }
const playback = (page: Page): Promise<Playback> =>
  page.locator('[data-voice-played-ms]').evaluate((element: HTMLElement) => {
    const ms = (name: string) => Number(element.dataset[name] ?? 'NaN')
    return { receivedMs: ms('voiceReceivedMs'), playedMs: ms('voicePlayedMs'), flushedMs: ms('voiceFlushedMs'), droppedMs: ms('voiceDroppedMs'), bufferedMs: ms('voiceBufferedMs') }
  })
/** Every bit of audio received was played, dropped, flushed or is queued (each rounded to the ms on its own). */
const accountedFor = ({ receivedMs, playedMs, flushedMs, droppedMs, bufferedMs }: Playback) => Math.abs(receivedMs - (playedMs + flushedMs + droppedMs + bufferedMs)) <= 3

/** What the page's `/api/voice` socket received, as the network carried it (JSON messages and audio frames, in order). */
type VoiceFrame = { kind: 'json'; message: { type: string; [key: string]: unknown } } | { kind: 'audio'; bytes: number }
function voiceSocketFrames(page: Page): VoiceFrame[] {
  const frames: VoiceFrame[] = []
  page.on('websocket', (socket) => {
    if (new URL(socket.url()).pathname !== '/api/voice') return
    socket.on('framereceived', ({ payload }) => {
      frames.push(typeof payload === 'string' ? { kind: 'json', message: JSON.parse(payload) as { type: string } } : { kind: 'audio', bytes: payload.length })
    })
  })
  return frames
}
const audioFramesIn = (frames: VoiceFrame[], from = 0) => frames.slice(from).filter((frame) => frame.kind === 'audio').length
const jsonIn = (frames: VoiceFrame[], from = 0) => frames.slice(from).flatMap((frame) => (frame.kind === 'json' ? [frame.message] : []))

/** Starts a voice call with the voice button; resolves with the fake's id of the call once it listens. */
async function startVoiceCall(page: Page): Promise<string> {
  const before = fake.transport.allStats().length
  await page.getByRole('button', { name: CHAT_TEXT.startVoiceCall }).click()
  await expect(toastWith(page, 'Voice Active')).toBeVisible()
  const calls = fake.transport.allStats()
  expect(calls).toHaveLength(before + 1)
  return calls.at(-1)!.callId
}

async function endVoiceCall(page: Page): Promise<void> {
  await page.getByRole('button', { name: CHAT_TEXT.endVoiceCall }).click()
  await expect(toastWith(page, 'Call Ended', 'Voice call has been ended.')).toBeVisible()
}

/** Says `text` into the call by typing it; resolves once the coach's answer is on screen. */
async function typeIntoCall(page: Page, text: string): Promise<void> {
  await messageBox(page).fill(text)
  await messageBox(page).press('Enter')
  await expect(line(page, 'coach', `echo:${text}`)).toBeVisible()
}

let fake: FakeVapi

test.describe('a voice call in the chat', () => {
  test.describe.configure({ timeout: 90_000 })

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

  test('a call started from a chat leaves its transcript in that chat: the typed lines stay in view, the spoken ones are marked (docs/decisions/084)', async ({ page }) => {
    const base = server.baseUrl
    await signUpViaApi(page, { paid: 'basic', fullName: 'Noor Haddad', origin: base })
    await page.goto(`${base}/chat`)

    // A text chat first: the message and the coach's reply, saved as a conversation.
    const typedFirst = 'Help me plan a calmer week'
    await messageBox(page).fill(typedFirst)
    await messageBox(page).press('Enter')
    await expect(line(page, 'you', typedFirst)).toBeVisible()
    await expect(messages(page).getByText(`echo:${typedFirst}`, { exact: false })).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
    await expect(conversationList(page).getByRole('listitem')).toHaveCount(1)

    // The call: the thread stays, the call's lines come into it.
    await startVoiceCall(page)
    await expect(line(page, 'you', typedFirst)).toBeVisible()
    await expect(line(page, 'you', USER_WORDS)).toBeVisible()
    await expect(line(page, 'coach', `echo:${USER_WORDS}`)).toBeVisible()
    await expect(line(page, 'you', typedFirst)).toBeVisible()
    await endVoiceCall(page)
    await expect(line(page, 'coach', 'Voice call ended. The conversation has been processed.')).toBeVisible()

    // Still one conversation, holding both, as the server saved it: the spoken lines marked, the typed one not.
    const spokenMark = (who: 'you' | 'coach', text: string) => messages(page).getByRole('listitem').filter({ has: page.getByText(`${who === 'you' ? 'You' : 'Coach'} said: ${text}`, { exact: true }) }).getByText(CHAT_TEXT.spoken)
    const check = async () => {
      await expect(line(page, 'you', typedFirst)).toBeVisible()
      await expect(line(page, 'you', USER_WORDS)).toHaveCount(1)
      await expect(line(page, 'coach', `echo:${USER_WORDS}`)).toHaveCount(1)
      await expect(spokenMark('you', USER_WORDS)).toHaveCount(1)
      await expect(spokenMark('coach', `echo:${USER_WORDS}`)).toHaveCount(1)
      await expect(spokenMark('you', typedFirst)).toHaveCount(0)
    }
    await check()
    await expect(conversationList(page).getByRole('listitem')).toHaveCount(1)
    expect(await seriousA11yViolations(page)).toEqual([])

    // Opened again from the history, it reads the same.
    await page.reload()
    await conversationList(page).getByRole('button', { name: new RegExp(`^${typedFirst}`) }).click()
    await expect(page.getByRole('heading', { level: 1, name: CHAT_TEXT.currentConversation })).toBeVisible()
    await check()
  })

  test("the user interrupts (Vapi's user-interrupted): the reply's queued audio is flushed at once, and the next reply plays", async ({ page }) => {
    // The microphone is not heard as speech (a threshold above any sample): only the test
    // interrupts. Replies are 4 s, sent faster than real time (as a speech synthesiser may), and
    // held after 2.5 s of them: still streaming, with 2.5 s queued in the browser.
    fake.transport.configureNext({ greeting: '', silenceThreshold: 40_000, frameIntervalMs: 0, replyFrames: 200 })
    const hold = fake.transport.holdAudio(125)
    try {
      const frames = voiceSocketFrames(page)
      const base = server.baseUrl
      await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Lee', origin: base })
      await page.goto(`${base}/chat`)
      const callId = await startVoiceCall(page)

      await typeIntoCall(page, 'Tell me about my week')
      // The reply's 2.5 s reached playback, which plays it in real time.
      await expect.poll(async () => (await playback(page)).receivedMs).toBeGreaterThanOrEqual(2400)
      const queued = await playback(page)
      expect(queued.flushedMs).toBe(0)
      expect(queued.bufferedMs).toBeGreaterThan(0)

      // The user interrupts: Vapi says user-interrupted and stops the reply.
      const fromInterrupt = frames.length
      expect(fake.transport.interrupt(callId)).toBe(true)
      await expect.poll(() => jsonIn(frames, fromInterrupt).map((message) => message.type)).toContain('interrupted')
      // What was queued is dropped at once, unplayed: nothing waits, and what was played is all
      // that will be of that reply.
      await expect.poll(async () => (await playback(page)).flushedMs).toBeGreaterThan(0)
      const flushed = await playback(page)
      expect(flushed.bufferedMs).toBe(0)
      expect(flushed.droppedMs).toBe(0)
      expect(accountedFor(flushed)).toBe(true)
      expect(flushed.playedMs).toBeLessThan(flushed.receivedMs)
      const stats = fake.transport.stats(callId)!
      expect(stats.sent.filter((message) => message.type === 'user-interrupted')).toHaveLength(1)
      expect(stats.framesOut).toBe(125)

      // The call goes on: the next reply (0.5 s) plays from the start.
      hold.release()
      fake.transport.configureCall(callId, { replyFrames: 25 })
      await typeIntoCall(page, 'And after that?')
      await expect.poll(async () => (await playback(page)).playedMs).toBeGreaterThanOrEqual(flushed.playedMs + 450)
      // The page got the first reply's 125 frames and this one's 25: nothing more of the first.
      await expect.poll(() => audioFramesIn(frames)).toBe(150)
      const after = await playback(page)
      expect(after.flushedMs).toBe(flushed.flushedMs)
      expect(accountedFor(after)).toBe(true)
      await endVoiceCall(page)
    } finally {
      hold.release()
    }
  })

  test('the user starts speaking while a reply plays: the browser drops the rest of it at once', async ({ page }) => {
    // The microphone speaks for 0.7 s every 3 s. Each reply (2.9 s, sent at once) comes after 1.8 s
    // of the user's silence, so the microphone's next words start while it plays. Vapi says only
    // speech-update (user-interrupted is off) and the reply has finished streaming: the gateway
    // relays `speech`, and the browser's own rule (the user talks while the assistant's audio
    // plays) flushes it.
    fake.transport.configureNext({ greeting: '', userInterrupted: false, frameIntervalMs: 0, replyFrames: 145, silenceMs: 1800 })
    const frames = voiceSocketFrames(page)
    const base = server.baseUrl
    await signUpViaApi(page, { paid: 'basic', fullName: 'Avery Kim', origin: base })
    await page.goto(`${base}/chat`)
    const callId = await startVoiceCall(page)

    await expect(line(page, 'coach', `echo:${USER_WORDS}`)).toBeVisible({ timeout: 15_000 })
    await expect.poll(async () => (await playback(page)).flushedMs, { timeout: 15_000 }).toBeGreaterThan(0)
    const flushed = await playback(page)
    expect(flushed.droppedMs).toBe(0)
    expect(accountedFor(flushed)).toBe(true)
    expect(flushed.playedMs).toBeLessThan(flushed.receivedMs)
    // No reply was streaming when the user spoke, and nobody said `interrupted`: the flush was the
    // browser's, on the user's `speech started`.
    const stats = fake.transport.stats(callId)!
    expect(stats.userTurns).toBeGreaterThanOrEqual(2)
    expect(stats.interruptions).toBe(0)
    expect(stats.sent.some((message) => message.type === 'user-interrupted')).toBe(false)
    const relayed = jsonIn(frames)
    expect(relayed.map((message) => message.type)).not.toContain('interrupted')
    expect(relayed).toContainEqual({ type: 'speech', role: 'user', status: 'started' })
    await endVoiceCall(page)
  })

  test("the header's mute toggle: queued audio is dropped, none reaches the page while muted (even from a Vapi that keeps sending), and unmuting brings the voice back", async ({ page }) => {
    // This Vapi ignores mute-assistant and keeps sending the assistant's audio: what the page
    // hears while muted is up to our gateway. The microphone is not heard as speech; replies (2 s,
    // sent at once) answer what is typed.
    fake.transport.configureNext({ greeting: '', silenceThreshold: 40_000, frameIntervalMs: 0, replyFrames: 100, honourAssistantMute: false })
    const frames = voiceSocketFrames(page)
    const base = server.baseUrl
    await signUpViaApi(page, { paid: 'basic', fullName: 'Morgan Diaz', origin: base })
    await page.goto(`${base}/chat`)
    const callId = await startVoiceCall(page)
    const responses = page.getByRole('button', { name: 'Voice responses' })

    // A reply is queued for playback...
    await typeIntoCall(page, 'What should I focus on?')
    await expect.poll(async () => (await playback(page)).receivedMs).toBeGreaterThanOrEqual(1900)
    expect((await playback(page)).bufferedMs).toBeGreaterThan(0)
    // ...and muting drops it at once; Vapi is told.
    await responses.click()
    await expect(responses).toHaveAttribute('aria-pressed', 'false')
    await expect(toastWith(page, CHAT_ERRORS.audioDisabledTitle, CHAT_ERRORS.audioDisabled)).toBeVisible()
    await expect.poll(async () => (await playback(page)).flushedMs).toBeGreaterThan(0)
    await expect.poll(() => fake.transport.stats(callId)?.controls ?? []).toContain('mute-assistant')
    const muted = await playback(page)
    expect(muted.bufferedMs).toBe(0)
    expect(accountedFor(muted)).toBe(true)

    // While muted, Vapi sends a whole reply's audio; the words still come, the audio does not.
    const fromMuted = frames.length
    const sentBefore = fake.transport.stats(callId)!.framesOut
    await typeIntoCall(page, 'Quietly now')
    await fake.transport.idle(callId)
    expect(fake.transport.stats(callId)!.framesOut).toBe(sentBefore + 100)
    // The reply's `speech stopped` follows its last frame through the gateway: once the page has
    // it, any frame the gateway relayed would be here too.
    await expect.poll(() => jsonIn(frames, fromMuted).filter((message) => message.type === 'speech' && message.role === 'assistant' && message.status === 'stopped')).toHaveLength(1)
    expect(audioFramesIn(frames, fromMuted)).toBe(0)
    const quiet = await playback(page)
    expect(quiet.receivedMs).toBe(muted.receivedMs)
    expect(quiet.playedMs).toBe(muted.playedMs)

    // Unmuted: Vapi is told, and the next reply is heard.
    await responses.click()
    await expect(responses).toHaveAttribute('aria-pressed', 'true')
    await expect(toastWith(page, CHAT_ERRORS.audioEnabledTitle, CHAT_ERRORS.audioEnabled)).toBeVisible()
    await expect.poll(() => fake.transport.stats(callId)?.controls ?? []).toContain('unmute-assistant')
    const fromUnmuted = frames.length
    await typeIntoCall(page, 'Out loud again')
    await expect.poll(() => audioFramesIn(frames, fromUnmuted)).toBe(100)
    await expect.poll(async () => (await playback(page)).playedMs).toBeGreaterThanOrEqual(quiet.playedMs + 1900)
    expect(accountedFor(await playback(page))).toBe(true)
    await endVoiceCall(page)
  })

  test("a refused or missing microphone says 'Voice Error' - 'Failed to start voice input.' and leaves the call idle", async () => {
    // A browser of its own without the fake microphone and without the permission.
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
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
