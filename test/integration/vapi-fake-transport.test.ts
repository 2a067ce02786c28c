import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Vapi, VapiClient, VapiError } from '@vapi-ai/server-sdk'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { DEFAULT_USER_TRANSCRIPT, FakeVapi, type FakeCall } from '../fakes/vapi'
import { fakeClock } from '../helpers/clock'
import { manualTimers } from '../helpers/timers'

/**
 * The Vapi fake's WebSocket transport and live call control (test/fakes/vapi-transport.ts): calls
 * created through the official SDK as the app creates them, the socket driven by a real `ws`
 * client, server messages caught by a small receiver. Every wait is on an event; time-outs (join,
 * maxDuration) move a test clock with manual timers.
 */

type Message = { type: string; [key: string]: unknown }

async function startReceiver() {
  const received: Message[] = []
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true })
  app.post('/webhooks/vapi', async (request) => {
    received.push((request.body as { message: Message }).message)
    return { ok: true }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks/vapi`, received, close: () => app.close() }
}

const START = new Date('2026-11-21T12:00:00.000Z')
const clock = fakeClock(START)
const timers = manualTimers(clock)
let fake: FakeVapi
let receiver: Awaited<ReturnType<typeof startReceiver>>
let client: VapiClient
const sockets: WebSocket[] = []

beforeAll(async () => {
  receiver = await startReceiver()
  // Frames at once (no wall-clock pacing) keep the suite quick; one test paces in real time.
  fake = await FakeVapi.start({ clock, timers: timers.timers, webhookUrl: receiver.url, transport: { frameIntervalMs: 0 } })
  client = new VapiClient({ token: fake.apiKey, baseUrl: fake.url, maxRetries: 0 })
})

afterAll(async () => {
  await fake?.close()
  await receiver?.close()
})

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate()
  await fake.settled()
  fake.reset()
  receiver.received.length = 0
  clock.set(START)
})

// ---- helpers ---------------------------------------------------------------------------------

const FRAME_BYTES = 640

/** 20 ms PCM16 frames at 16 kHz: a tone (speech to the fake) or silence. */
function tone(ms: number, amplitude = 6000): Buffer[] {
  return Array.from({ length: ms / 20 }, (_, index) => {
    const frame = Buffer.alloc(FRAME_BYTES)
    for (let i = 0; i < FRAME_BYTES / 2; i += 1) frame.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 300 * (index * 320 + i)) / 16000)), i * 2)
    return frame
  })
}
const silence = (ms: number) => Array.from({ length: ms / 20 }, () => Buffer.alloc(FRAME_BYTES))

function websocketBody(assistantOverrides: Record<string, unknown> = {}, transport: Record<string, unknown> = {}): Vapi.CreateCallDto {
  return {
    assistantId: 'asst_test_coach',
    transport: { provider: 'vapi.websocket', audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: 16000 }, ...transport },
    assistantOverrides: {
      variableValues: { firstName: 'Dana' },
      serverMessages: ['status-update', 'end-of-call-report'],
      ...assistantOverrides,
    },
  } as unknown as Vapi.CreateCallDto
}

/** Creates a WebSocket call through the SDK, as the app does. */
async function createCall(assistantOverrides: Record<string, unknown> = {}, transport: Record<string, unknown> = {}): Promise<FakeCall & { transport: { websocketCallUrl: string } }> {
  return (await client.calls.create(websocketBody(assistantOverrides, transport))) as unknown as FakeCall & { transport: { websocketCallUrl: string } }
}

async function failure(promise: Promise<unknown>): Promise<VapiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof VapiError) return error
    throw error
  }
  throw new Error('expected the SDK to throw')
}

type Event = { kind: 'json'; message: Message } | { kind: 'binary'; data: Buffer }

/** A `ws` client that records every frame in order and waits on them. */
async function connect(url: string, { bearer = true }: { bearer?: boolean } = {}) {
  const ws = new WebSocket(url, { headers: bearer ? { authorization: `Bearer ${fake.apiKey}` } : {} })
  sockets.push(ws)
  const events: Event[] = []
  const checks = new Set<() => void>()
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  ws.on('message', (data: Buffer, isBinary) => {
    events.push(isBinary ? { kind: 'binary', data } : { kind: 'json', message: JSON.parse(data.toString()) as Message })
    for (const check of [...checks]) check()
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const json = () => events.flatMap((event) => (event.kind === 'json' ? [event.message] : []))
  return {
    ws,
    events,
    closed,
    json,
    frames: () => events.flatMap((event) => (event.kind === 'binary' ? [event.data] : [])),
    /** Resolves once `predicate` holds for the events so far. */
    until(predicate: (events: Event[]) => boolean): Promise<void> {
      if (predicate(events)) return Promise.resolve()
      return new Promise((resolve) => {
        const check = () => {
          if (!predicate(events)) return
          checks.delete(check)
          resolve()
        }
        checks.add(check)
      })
    },
    /** Resolves once `count` JSON messages match. */
    untilJson(match: Partial<Message>, count = 1): Promise<void> {
      const matches = (message: Message) => Object.entries(match).every(([key, value]) => message[key] === value)
      return this.until(() => json().filter(matches).length >= count)
    },
    send(message: unknown) {
      ws.send(JSON.stringify(message))
    },
    sendAudio(frames: Buffer[]) {
      for (const frame of frames) ws.send(frame)
    },
  }
}
type Client = Awaited<ReturnType<typeof connect>>

/** The status an upgrade is refused with. */
function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.on('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString()))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    ws.on('open', () => reject(new Error('the upgrade was accepted')))
    ws.on('error', () => {})
  })
}

/** A short description of the JSON messages, e.g. `speech-update:assistant:started`, `transcript:user:final`. */
const describeJson = (message: Message) =>
  message.type === 'speech-update'
    ? `speech-update:${String(message.role)}:${String(message.status)}`
    : message.type === 'transcript'
      ? `transcript:${String(message.role)}:${String(message.transcriptType)}`
      : message.type === 'status-update'
        ? `status-update:${String(message.status)}`
        : message.type
/** The event sequence with runs of binary frames collapsed to `audio×N`. */
function sequence(events: Event[]): string[] {
  const out: string[] = []
  for (const event of events) {
    if (event.kind === 'json') out.push(describeJson(event.message))
    else {
      const last = out.at(-1)
      const run = last?.match(/^audio×(\d+)$/)
      if (run) out[out.length - 1] = `audio×${Number(run[1]) + 1}`
      else out.push('audio×1')
    }
  }
  return out
}

const webhooksOf = (callId: string) => receiver.received.filter((message) => (message.call as { id?: string } | undefined)?.id === callId)
const webhookTypes = (callId: string) => webhooksOf(callId).map((message) => (message.type === 'status-update' ? `status-update:${String(message.status)}` : message.type))
const control = (call: FakeCall, body: unknown) =>
  fetch(call.monitor.controlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

const GREETING_SEQUENCE = ['speech-update:assistant:started', 'transcript:assistant:partial', 'transcript:assistant:final', 'conversation-update', 'audio×10', 'speech-update:assistant:stopped']

/** Connects and waits for the greeting to finish. */
async function connectGreeted(call: { transport: { websocketCallUrl: string } }): Promise<Client> {
  const socket = await connect(call.transport.websocketCallUrl)
  await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' })
  return socket
}

// ---- tests -----------------------------------------------------------------------------------

describe('POST /call with the WebSocket transport', () => {
  it('answers 201 with a queued vapi.websocketCall, its socket URL and monitor URLs on the fake', async () => {
    const { data, rawResponse } = await client.calls.create(websocketBody()).withRawResponse()
    const call = data as unknown as FakeCall
    expect(rawResponse.status).toBe(201)
    const host = new URL(fake.url).host
    expect(call).toMatchObject({
      type: 'vapi.websocketCall',
      status: 'queued',
      assistantId: 'asst_test_coach',
      transport: {
        provider: 'vapi.websocket',
        audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: 16000 },
        websocketCallUrl: `ws://${host}/${call.id}/transport`,
      },
      monitor: { listenUrl: `ws://${host}/${call.id}/listen`, controlUrl: `http://${host}/${call.id}/control` },
      subscriptionLimits: { remainingConcurrentCalls: 9 },
    })
    expect(call.phoneCallProvider).toBeUndefined()
    expect(((await client.calls.get({ id: call.id })) as unknown as FakeCall).transport?.websocketCallUrl).toBe(call.transport?.websocketCallUrl)
  })

  it('fills in the default audio format', async () => {
    const call = (await client.calls.create({ assistantId: 'asst_test_coach', transport: { provider: 'vapi.websocket' } } as unknown as Vapi.CreateCallDto)) as unknown as FakeCall
    expect(call.transport?.audioFormat).toEqual({ format: 'pcm_s16le', container: 'raw', sampleRate: 16000 })
  })

  it.each([
    ['a phoneNumberId', { phoneNumberId: 'pn_1' }, 'phoneNumberId should not be provided with transport.provider vapi.websocket'],
    ['a phoneNumber', { phoneNumber: { twilioPhoneNumber: '+12025000000' } }, 'phoneNumber should not be provided with transport.provider vapi.websocket'],
    ['customers[]', { customers: [{ number: '+12025230001' }] }, 'customers should not be provided with transport.provider vapi.websocket'],
    ['another provider', { transport: { provider: 'vapi.sip' } }, 'transport.provider must be one of the following values: vapi.websocket'],
    ['an unknown format', { transport: { provider: 'vapi.websocket', audioFormat: { format: 'opus' } } }, 'transport.audioFormat.format must be one of the following values: pcm_s16le, mulaw'],
    ['a container other than raw', { transport: { provider: 'vapi.websocket', audioFormat: { container: 'wav' } } }, 'transport.audioFormat.container must be one of the following values: raw'],
    ['a sample rate out of range', { transport: { provider: 'vapi.websocket', audioFormat: { sampleRate: 200000 } } }, 'transport.audioFormat.sampleRate must be an integer'],
    ['an unknown transport property', { transport: { provider: 'vapi.websocket', websocketCallUrl: 'ws://x' } }, 'transport.property websocketCallUrl should not exist'],
  ])('refuses %s with a 400 in Vapi’s shape', async (_case, overrides, expected) => {
    const error = await failure(client.calls.create({ ...websocketBody(), ...overrides } as unknown as Vapi.CreateCallDto))
    expect(error).toBeInstanceOf(Vapi.BadRequestError)
    expect((error.body as { message: string[] }).message.some((message) => message.includes(expected))).toBe(true)
    expect(fake.calls.list()).toEqual([])
  })
})

describe('the socket at /<callId>/transport', () => {
  it('marks the call in progress, says in-progress, then greets with transcripts and 20 ms PCM16 frames', async () => {
    const call = await createCall({ firstMessage: 'Hello {{ firstName }}, ready when you are.' })
    const socket = await connectGreeted(call)
    expect(sequence(socket.events)).toEqual(['status-update:in-progress', ...GREETING_SEQUENCE])
    expect(socket.json()[0]).toEqual({ type: 'status-update', status: 'in-progress' })
    expect(socket.json().find((message) => message.transcriptType === 'final')).toEqual({ type: 'transcript', role: 'assistant', transcriptType: 'final', transcript: 'Hello Dana, ready when you are.' })
    expect(socket.frames().every((frame) => frame.length === FRAME_BYTES)).toBe(true)
    expect(socket.frames().some((frame) => frame.readInt16LE(100) !== 0)).toBe(true)
    expect((await client.calls.get({ id: call.id })).status).toBe('in-progress')
    expect(fake.transport.stats(call.id)).toMatchObject({ state: 'open', bearer: true, authorization: 'valid', framesOut: 10, bytesOut: 10 * FRAME_BYTES })
  })

  it('greets with the default text when the call has no first message, and paces frames in real time by default', async () => {
    const call = await createCall()
    fake.transport.configureCall(call.id, { frameIntervalMs: 20, greetingFrames: 3 })
    const socket = await connectGreeted(call)
    expect(socket.json().find((message) => message.transcriptType === 'final')?.transcript).toBe('Hi Dana, this is your coach. What would you like to talk about?')
    expect(socket.frames()).toHaveLength(3)
  })

  it('hears speech followed by silence: user speech-update and transcripts, then the assistant’s reply with audio', async () => {
    fake.transport.configureNext({ userTranscripts: ['Let us talk about sleep.', 'And money.'] })
    const call = await createCall()
    const socket = await connectGreeted(call)
    const greeted = socket.events.length

    socket.sendAudio([...tone(200), ...silence(500)])
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 2)
    expect(sequence(socket.events.slice(greeted))).toEqual([
      'speech-update:user:started',
      'transcript:user:partial',
      'transcript:user:final',
      'speech-update:user:stopped',
      'conversation-update',
      ...GREETING_SEQUENCE,
    ])
    const transcripts = socket.json().filter((message) => message.type === 'transcript').slice(2)
    expect(transcripts.map((message) => [message.role, message.transcriptType, message.transcript])).toEqual([
      ['user', 'partial', 'Let us talk'],
      ['user', 'final', 'Let us talk about sleep.'],
      ['assistant', 'partial', 'echo:Let us talk'],
      ['assistant', 'final', 'echo:Let us talk about sleep.'],
    ])
    const turns = socket.json().filter((message) => message.type === 'speech-update').map((message) => message.turn)
    expect(turns).toEqual([1, 1, 2, 2, 3, 3])

    socket.sendAudio([...tone(200), ...silence(500)])
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 3)
    expect(socket.json().filter((message) => message.transcriptType === 'final').map((message) => message.transcript)).toEqual([
      'Hi Dana, this is your coach. What would you like to talk about?',
      'Let us talk about sleep.',
      'echo:Let us talk about sleep.',
      'And money.',
      'echo:And money.',
    ])
    expect(fake.transport.stats(call.id)).toMatchObject({ framesIn: 70, bytesIn: 70 * FRAME_BYTES, userTurns: 2, assistantTurns: 3 })
  })

  it('ignores speech shorter than the threshold and quiet audio', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.sendAudio([...tone(100), ...silence(500), ...tone(400, 200), ...silence(500)])
    await fake.transport.waitFor(call.id, (stats) => stats.framesIn === 75)
    await fake.transport.idle(call.id)
    expect(socket.json().filter((message) => message.role === 'user')).toEqual([])
  })

  it('sends user speech-update and user-interrupted when the user talks over a reply, and stops its audio', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    const hold = fake.transport.holdAudio()
    socket.sendAudio([...tone(200), ...silence(500)])
    // The reply's first frame arrives, then its audio is held: it is still streaming.
    await socket.until((events) => sequence(events).at(-1) === 'audio×1' && socket.json().filter((message) => message.type === 'speech-update').length === 5)
    socket.sendAudio(tone(200))
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 2)
    hold.release()
    const after = socket.json().slice(-4)
    expect(after.map(describeJson)).toEqual(['speech-update:user:started', 'transcript:user:partial', 'user-interrupted', 'speech-update:assistant:stopped'])
    expect(after[2]).toEqual({ type: 'user-interrupted', turnId: expect.any(String) })
    expect(socket.frames()).toHaveLength(11)
    expect(fake.transport.stats(call.id)?.interruptions).toBe(1)

    // The user's turn goes on: silence ends it and the assistant answers again.
    socket.sendAudio(silence(500))
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 3)
  })

  it('sends only the speech-update when user-interrupted is off', async () => {
    fake.transport.configureNext({ userInterrupted: false })
    const call = await createCall()
    const socket = await connectGreeted(call)
    const hold = fake.transport.holdAudio()
    socket.sendAudio([...tone(200), ...silence(500)])
    await socket.until((events) => sequence(events).at(-1) === 'audio×1' && socket.json().filter((message) => message.type === 'speech-update').length === 5)
    socket.sendAudio(tone(200))
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 2)
    hold.release()
    expect(socket.json().some((message) => message.type === 'user-interrupted')).toBe(false)
  })

  it('sends user-interrupted mid-reply from the test hook, and nothing when no reply is streaming', async () => {
    const call = await createCall()
    const hold = fake.transport.holdAudio()
    const socket = await connect(call.transport.websocketCallUrl)
    await socket.until((events) => sequence(events).at(-1) === 'audio×1')
    expect(fake.transport.interrupt(call.id)).toBe(true)
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' })
    hold.release()
    expect(socket.json().slice(-2).map(describeJson)).toEqual(['user-interrupted', 'speech-update:assistant:stopped'])
    await fake.transport.idle(call.id)
    expect(fake.transport.interrupt(call.id)).toBe(false)
  })

  it('holds a turn after its first `afterFrames` frames when asked', async () => {
    fake.transport.configureNext({ greetingFrames: 40 })
    const call = await createCall()
    const hold = fake.transport.holdAudio(25)
    const socket = await connect(call.transport.websocketCallUrl)
    await socket.until((events) => sequence(events).at(-1) === 'audio×25')
    // Still streaming: the hook interrupts it, and the rest of its frames never come.
    expect(fake.transport.interrupt(call.id)).toBe(true)
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' })
    hold.release()
    expect(socket.frames()).toHaveLength(25)
    expect(() => fake.transport.holdAudio(0)).toThrow(RangeError)
  })

  it('closes 1007 on a PCM16 frame with half a sample, and the call ends', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.ws.send(Buffer.alloc(641))
    expect((await socket.closed).code).toBe(1007)
    expect(await fake.transport.ended(call.id)).toBe('phone-call-provider-closed-websocket')
  })

  it('speaks mu-law at 8 kHz in 160-byte frames and hears mu-law speech', async () => {
    const call = await createCall({}, { audioFormat: { format: 'mulaw', container: 'raw', sampleRate: 8000 } })
    const socket = await connectGreeted(call)
    expect(socket.frames().map((frame) => frame.length)).toEqual(Array(10).fill(160))
    // The fake's own tone frames, sent back, are speech; 0xff is mu-law silence.
    socket.sendAudio([...socket.frames(), ...Array.from({ length: 25 }, () => Buffer.alloc(160, 0xff))])
    await socket.untilJson({ type: 'transcript', role: 'user', transcriptType: 'final', transcript: DEFAULT_USER_TRANSCRIPT })
  })
})

describe('messages on the socket', () => {
  it('speaks a say (content or message), records controls and mutes the assistant’s audio', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'say', content: 'First thing.' })
    socket.send({ type: 'say', message: 'Second thing.' })
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 3)
    expect(socket.frames()).toHaveLength(30)

    socket.send({ type: 'control', control: 'mute-assistant' })
    socket.send({ type: 'say', content: 'Muted words.' })
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 4)
    expect(socket.frames()).toHaveLength(30)
    socket.send({ type: 'control', control: 'unmute-assistant' })
    socket.send({ type: 'control', control: 'say-first-message' })
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 5)
    expect(socket.frames()).toHaveLength(40)

    expect(socket.json().filter((message) => message.transcriptType === 'final').map((message) => message.transcript)).toEqual([
      'Hi Dana, this is your coach. What would you like to talk about?',
      'First thing.',
      'Second thing.',
      'Muted words.',
      'Hi Dana, this is your coach. What would you like to talk about?',
    ])
    expect(fake.transport.stats(call.id)).toMatchObject({
      says: ['First thing.', 'Second thing.', 'Muted words.'],
      controls: ['mute-assistant', 'unmute-assistant', 'say-first-message'],
      framesMuted: 10,
      assistantMuted: false,
    })
  })

  it('answers an added user or system message by voice, and not when triggerResponseEnabled is false', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'add-message', message: { role: 'user', content: 'typed while talking' } })
    await socket.untilJson({ type: 'transcript', transcriptType: 'final', transcript: 'echo:typed while talking' })
    socket.send({ type: 'add-message', message: { role: 'system', content: 'be brief' }, triggerResponseEnabled: false })
    socket.send({ type: 'add-message', message: { role: 'system', content: 'note' }, triggerResponseEnabled: true })
    await socket.untilJson({ type: 'transcript', transcriptType: 'final', transcript: 'echo:note' })
    await fake.transport.idle(call.id)
    expect(socket.json().some((message) => message.transcript === 'echo:be brief')).toBe(false)
    expect(fake.transport.stats(call.id)?.addMessages).toEqual([
      { role: 'user', content: 'typed while talking', triggerResponseEnabled: true },
      { role: 'system', content: 'be brief', triggerResponseEnabled: false },
      { role: 'system', content: 'note', triggerResponseEnabled: true },
    ])
    const last = socket.json().filter((message) => message.type === 'conversation-update').at(-1) as unknown as { messagesOpenAIFormatted: unknown[] }
    expect(last.messagesOpenAIFormatted).toContainEqual({ role: 'system', content: 'be brief' })
  })

  it('sends the assistant’s frames anyway while muted when honourAssistantMute is off (the control is still recorded)', async () => {
    fake.transport.configureNext({ honourAssistantMute: false })
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'control', control: 'mute-assistant' })
    socket.send({ type: 'say', content: 'Said anyway.' })
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 2)
    expect(socket.frames()).toHaveLength(20)
    expect(fake.transport.stats(call.id)).toMatchObject({ controls: ['mute-assistant'], assistantMuted: true, framesMuted: 0, framesOut: 20 })
  })

  it('stops hearing the customer while muted', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'control', control: 'mute-customer' })
    await fake.transport.waitFor(call.id, (stats) => stats.customerMuted)
    socket.sendAudio([...tone(200), ...silence(500)])
    await fake.transport.waitFor(call.id, (stats) => stats.framesIn === 35)
    expect(socket.json().filter((message) => message.role === 'user')).toEqual([])
  })

  it('records unknown types and text that is not JSON, and carries on', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'transfer', destination: { type: 'number', number: '+12025000000' } })
    socket.ws.send('not json')
    socket.send({ type: 'say', content: 'still here' })
    await socket.untilJson({ type: 'transcript', transcriptType: 'final', transcript: 'still here' })
    const stats = fake.transport.stats(call.id)!
    expect(stats.ignored).toEqual([{ type: 'transfer', destination: { type: 'number', number: '+12025000000' } }])
    expect(stats.invalidText).toBe(1)
    expect(stats.received.map(({ via }) => via)).toEqual(['socket', 'socket', 'socket'])
  })
})

describe('ending a WebSocket call', () => {
  it('on end-call: status-update ended, close 1000, then status-update ended and the end-of-call-report to the server URL', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.sendAudio([...tone(200), ...silence(500)])
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' }, 2)
    clock.advance(42_000)
    socket.send({ type: 'end-call' })
    expect(await socket.closed).toEqual({ code: 1000, reason: 'Call ended' })
    expect(socket.json().at(-1)).toEqual({ type: 'status-update', status: 'ended', endedReason: 'customer-ended-call' })
    await fake.settled()

    expect(webhookTypes(call.id)).toEqual(['status-update:in-progress', 'status-update:ended', 'end-of-call-report'])
    const report = webhooksOf(call.id).at(-1)!
    expect(report).toMatchObject({
      endedReason: 'customer-ended-call',
      startedAt: START.toISOString(),
      endedAt: new Date(START.getTime() + 42_000).toISOString(),
      durationSeconds: 42,
      durationMs: 42_000,
      cost: 0.084,
      analysis: { summary: expect.stringContaining('Dana') },
    })
    const artifact = report.artifact as { transcript: string; messages: Array<{ role: string; message: string }> }
    expect(artifact.transcript).toBe(
      ['AI: Hi Dana, this is your coach. What would you like to talk about?', `User: ${DEFAULT_USER_TRANSCRIPT}`, `AI: echo:${DEFAULT_USER_TRANSCRIPT}`].join('\n'),
    )
    expect(artifact.messages.map((message) => message.role)).toEqual(['bot', 'user', 'bot'])
    expect((await client.calls.get({ id: call.id })).status).toBe('ended')
    expect(fake.transport.stats(call.id)).toMatchObject({ state: 'ended', endCallReceived: 'socket', closedBy: 'fake', closeCode: 1000, endedReason: 'customer-ended-call' })
  })

  it('takes hangup as end-call', async () => {
    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl)
    socket.send({ type: 'hangup' })
    expect((await socket.closed).code).toBe(1000)
    expect(await fake.transport.ended(call.id)).toBe('customer-ended-call')
  })

  it('mirrors the socket’s messages to the server URL when serverMessages ask for them', async () => {
    const call = await createCall({ serverMessages: ['status-update', 'transcript[transcriptType="final"]', 'user-interrupted', 'end-of-call-report'] })
    const socket = await connectGreeted(call)
    socket.send({ type: 'end-call' })
    await socket.closed
    await fake.settled()
    expect(webhookTypes(call.id)).toEqual(['status-update:in-progress', 'transcript', 'status-update:ended', 'end-of-call-report'])
    expect(webhooksOf(call.id)[1]).toMatchObject({ role: 'assistant', transcriptType: 'final', transcript: expect.stringContaining('Hi Dana') })
  })

  it('ends from the assistant’s side with the test hook', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    expect(fake.transport.endCall(call.id)).toBe(true)
    expect((await socket.closed).code).toBe(1000)
    expect(socket.json().at(-1)).toEqual({ type: 'status-update', status: 'ended', endedReason: 'assistant-ended-call' })
    expect(fake.transport.endCall(call.id)).toBe(false)
  })

  it('ends after a say with endCallAfterSpoken', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.send({ type: 'say', content: 'Goodbye.', endCallAfterSpoken: true })
    await socket.closed
    expect(await fake.transport.ended(call.id)).toBe('assistant-ended-call-after-message-spoken')
    expect(socket.json().filter((message) => message.transcriptType === 'final').at(-1)?.transcript).toBe('Goodbye.')
  })

  it('ends at maxDurationSeconds (on the test clock)', async () => {
    const call = await createCall({ maxDurationSeconds: 60 })
    const socket = await connectGreeted(call)
    timers.advanceTo(new Date(START.getTime() + 59_000))
    expect(fake.transport.stats(call.id)?.state).toBe('open')
    timers.advanceTo(new Date(START.getTime() + 60_000))
    expect((await socket.closed).code).toBe(1000)
    expect(socket.json().at(-1)).toEqual({ type: 'status-update', status: 'ended', endedReason: 'exceeded-max-duration' })
    await fake.settled()
    expect(webhooksOf(call.id).at(-1)).toMatchObject({ type: 'end-of-call-report', durationSeconds: 60 })
  })

  it('drops the socket without a close frame (1006 for the client), and the call ends', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    expect(fake.transport.drop(call.id)).toBe(true)
    expect((await socket.closed).code).toBe(1006)
    expect(socket.json().at(-1)?.type).not.toBe('status-update')
    await fake.settled()
    expect(webhookTypes(call.id)).toEqual(['status-update:in-progress', 'status-update:ended', 'end-of-call-report'])
    expect(webhooksOf(call.id).at(-1)?.endedReason).toBe('call.in-progress.error-vapifault-worker-died')
    expect(fake.transport.stats(call.id)?.closedBy).toBe('drop')
  })

  it('ends when the client closes without end-call (recorded as such)', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    socket.ws.close(1001, 'going away')
    expect(await fake.transport.ended(call.id)).toBe('phone-call-provider-closed-websocket')
    expect(fake.transport.stats(call.id)).toMatchObject({ closedBy: 'client', closeCode: 1001, closeReason: 'going away', endCallReceived: undefined })
  })

  it('ends a call nobody joins after the join timeout, and refuses a late socket', async () => {
    const call = await createCall()
    timers.advanceTo(new Date(START.getTime() + 15_000))
    expect(await fake.transport.ended(call.id)).toBe('call.in-progress.error-assistant-did-not-receive-customer-audio')
    await fake.settled()
    expect(webhookTypes(call.id)).toEqual(['status-update:ended', 'end-of-call-report'])
    expect(webhooksOf(call.id).at(-1)).toMatchObject({ durationSeconds: 0, cost: 0, artifact: { messages: [], transcript: '' } })
    expect((await refusedUpgrade(call.transport.websocketCallUrl)).status).toBe(404)
  })

  it('closes the socket when the call is deleted', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    await client.calls.delete({ id: call.id })
    expect((await socket.closed).reason).toBe('Call deleted')
    expect(socket.json().at(-1)).toEqual({ type: 'status-update', status: 'ended', endedReason: 'call-deleted' })
  })
})

describe('refusals at the upgrade', () => {
  it('refuses an unknown call, a second socket and an ended call; records the bearer', async () => {
    expect(await refusedUpgrade(`${fake.url.replace('http', 'ws')}/${crypto.randomUUID()}/transport`)).toEqual({
      status: 404,
      body: JSON.stringify({ message: 'Call not found', error: 'Not Found', statusCode: 404 }),
    })
    expect((await refusedUpgrade(`${fake.url.replace('http', 'ws')}/nothing-here`)).status).toBe(404)

    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl, { bearer: false })
    expect((await refusedUpgrade(call.transport.websocketCallUrl, { authorization: `Bearer ${fake.apiKey}` })).status).toBe(409)
    expect(fake.transport.stats(call.id)).toMatchObject({ bearer: false, authorization: 'missing', upgrades: [{ status: 101 }, { status: 409 }] })

    socket.send({ type: 'end-call' })
    await socket.closed
    expect((await refusedUpgrade(call.transport.websocketCallUrl)).status).toBe(404)
  })

  it('refuses a socket without the key when the bearer is required', async () => {
    fake.transport.configure({ requireBearer: true })
    const call = await createCall()
    expect((await refusedUpgrade(call.transport.websocketCallUrl)).status).toBe(401)
    expect((await refusedUpgrade(call.transport.websocketCallUrl, { authorization: 'Bearer wrong' })).status).toBe(401)
    const socket = await connect(call.transport.websocketCallUrl)
    await socket.untilJson({ type: 'status-update', status: 'in-progress' })
    expect(fake.transport.stats(call.id)?.upgrades.map((upgrade) => [upgrade.status, upgrade.authorization])).toEqual([
      [401, 'missing'],
      [401, 'invalid'],
      [101, 'valid'],
    ])
  })
})

describe('echo mode', () => {
  it('sends every binary frame straight back, with no conversation', async () => {
    fake.transport.configureNext({ echo: true })
    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl)
    const frames = Array.from({ length: 50 }, () => randomBytes(FRAME_BYTES))
    socket.sendAudio(frames)
    await socket.until((events) => events.filter((event) => event.kind === 'binary').length === 50)
    expect(socket.frames()).toEqual(frames)
    expect(socket.json()).toEqual([{ type: 'status-update', status: 'in-progress' }])
    expect(fake.transport.stats(call.id)).toMatchObject({ echo: true, framesIn: 50, framesOut: 50, bytesIn: 50 * FRAME_BYTES, bytesOut: 50 * FRAME_BYTES })
    socket.send({ type: 'end-call' })
    expect((await socket.closed).code).toBe(1000)
  })
})

describe('a socket that stops reading', () => {
  it('stalls: the client’s writes back up and nothing is read; resumed, everything sent is read in order', async () => {
    fake.transport.configureNext({ echo: true })
    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl)
    await socket.untilJson({ type: 'status-update', status: 'in-progress' })
    expect(fake.transport.stallReading(call.id)).toBe(true)
    expect(fake.transport.stats(call.id)?.readingStalled).toBe(true)
    // The client keeps sending until its own socket holds what the kernel would not take.
    const frames: Buffer[] = []
    while (socket.ws.bufferedAmount === 0) {
      for (let i = 0; i < 100; i++) {
        const frame = Buffer.alloc(FRAME_BYTES)
        frame.writeUInt32LE(frames.length)
        frames.push(frame)
        socket.ws.send(frame)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(fake.transport.stats(call.id)?.framesIn).toBe(0)
    expect(fake.transport.resumeReading(call.id)).toBe(true)
    expect(fake.transport.resumeReading(call.id)).toBe(false)
    await socket.until((events) => events.filter((event) => event.kind === 'binary').length === frames.length)
    expect(socket.frames().map((frame) => frame.readUInt32LE(0))).toEqual(frames.map((_, index) => index))
    expect(fake.transport.stats(call.id)).toMatchObject({ readingStalled: false, framesIn: frames.length })
  })

  it('answers false for a call whose socket is not open', async () => {
    const call = await createCall()
    expect(fake.transport.stallReading(call.id)).toBe(false)
    expect(fake.transport.resumeReading(call.id)).toBe(false)
    expect(fake.transport.stallReading('no-such-call')).toBe(false)
  })
})

describe('the control URL', () => {
  it('takes the same messages as the socket without the key, and end-call ends the call', async () => {
    const call = await createCall()
    const socket = await connectGreeted(call)
    const said = await control(call, { type: 'say', content: 'From the control URL.' })
    expect(said.status).toBe(200)
    expect(await said.json()).toEqual({ ok: true })
    await socket.untilJson({ type: 'transcript', transcriptType: 'final', transcript: 'From the control URL.' })
    expect((await control(call, { type: 'add-message', message: { role: 'user', content: 'typed' } })).status).toBe(200)
    await socket.untilJson({ type: 'transcript', transcriptType: 'final', transcript: 'echo:typed' })
    expect((await control(call, { type: 'control', control: 'mute-assistant' })).status).toBe(200)

    expect((await control(call, { type: 'end-call' })).status).toBe(200)
    expect((await socket.closed).code).toBe(1000)
    expect(socket.json().at(-1)).toEqual({ type: 'status-update', status: 'ended', endedReason: 'customer-ended-call' })
    expect(fake.transport.stats(call.id)).toMatchObject({ endCallReceived: 'control', controls: ['mute-assistant'], says: ['From the control URL.'] })
    expect(fake.transport.controlMessages(call.id).map((message) => (message as Message).type)).toEqual(['say', 'add-message', 'control', 'end-call'])
    expect(fake.requestsTo('POST', `/${call.id}/control`)).toHaveLength(4)

    const again = await control(call, { type: 'end-call' })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual({ message: 'Call not found', error: 'Not Found', statusCode: 404 })
  })

  it('answers 404 for an unknown call and 400 for a message Vapi would refuse', async () => {
    const unknown = await fetch(`${fake.url}/${crypto.randomUUID()}/control`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"end-call"}' })
    expect(unknown.status).toBe(404)
    const call = await createCall()
    for (const [body, message] of [
      [{ type: 'dance' }, 'type must be one of the following values: say, add-message, control, end-call, transfer, handoff'],
      [{ type: 'say' }, 'content must be a non-empty string'],
      [{ type: 'control', control: 'mute-everyone' }, 'control must be one of the following values'],
      [{ type: 'add-message', message: { role: 'tool', content: 'x' } }, 'message.role must be one of the following values: user, system, assistant'],
    ] as const) {
      const response = await control(call, body)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { message: string[] }).message[0]).toContain(message)
    }
  })

  it('ends an answered phone call held in progress: the rest of its script is dropped, the webhooks follow', async () => {
    const hold = fake.calls.holdBefore('status-update:ended')
    const call = (await client.calls.create({
      assistantId: 'asst_test_coach',
      phoneNumberId: 'pn_test_line',
      customer: { number: '+12025230001' },
      assistantOverrides: {
        variableValues: { firstName: 'Dana', focusAreas: 'Finance' },
        serverMessages: ['status-update', 'end-of-call-report', 'transcript[transcriptType="final"]'],
      },
    })) as unknown as FakeCall
    expect(await hold.reached).toMatchObject({ callId: call.id, label: 'status-update:ended' })
    expect((await client.calls.get({ id: call.id })).status).toBe('in-progress')
    expect(webhookTypes(call.id)).toEqual(['status-update:queued', 'status-update:ringing', 'status-update:in-progress', ...Array(5).fill('transcript')])
    expect(webhooksOf(call.id).filter((message) => message.type === 'transcript').every((message) => message.transcriptType === 'final')).toBe(true)

    const ended = await control(call, { type: 'end-call' })
    expect(ended.status).toBe(200)
    expect(await client.calls.get({ id: call.id })).toMatchObject({ status: 'ended', endedReason: 'customer-ended-call' })
    await fake.settled()
    hold.release()
    expect(webhookTypes(call.id).slice(8)).toEqual(['status-update:ended', 'end-of-call-report'])
    const report = webhooksOf(call.id).at(-1)!
    expect(report).toMatchObject({ endedReason: 'customer-ended-call', analysis: { summary: expect.stringContaining('Dana') } })
    expect((report.artifact as { messages: unknown[] }).messages).toHaveLength(5)
    expect((await control(call, { type: 'end-call' })).status).toBe(404)
  })

  it('ends a phone call early, before anything was said: no summary', async () => {
    fake.calls.pacing = 'manual'
    const call = (await client.calls.create({
      assistantId: 'asst_test_coach',
      phoneNumberId: 'pn_test_line',
      customer: { number: '+12025230001' },
      assistantOverrides: { serverMessages: ['status-update', 'end-of-call-report'] },
    })) as unknown as FakeCall
    await fake.advance()
    await fake.advance()
    await fake.advance()
    expect((await client.calls.get({ id: call.id })).status).toBe('in-progress')
    expect((await control(call, { type: 'say', content: 'recorded only' })).status).toBe(200)
    expect((await control(call, { type: 'end-call' })).status).toBe(200)
    await fake.settled()
    expect(await fake.advance()).toBeUndefined()
    expect(webhookTypes(call.id)).toEqual(['status-update:queued', 'status-update:ringing', 'status-update:in-progress', 'status-update:ended', 'end-of-call-report'])
    expect(webhooksOf(call.id).at(-1)).toMatchObject({ endedReason: 'customer-ended-call', analysis: {}, artifact: { messages: [] } })
    expect(fake.transport.controlMessages(call.id)).toEqual([{ type: 'say', content: 'recorded only' }, { type: 'end-call' }])
  })
})

describe('live phone transcripts', () => {
  it('delivers partial and final transcripts between in-progress and ended when serverMessages include transcript, one step at a time', async () => {
    fake.calls.pacing = 'manual'
    const call = (await client.calls.create({
      assistantId: 'asst_test_coach',
      phoneNumberId: 'pn_test_line',
      customer: { number: '+12025230001' },
      assistantOverrides: { variableValues: { firstName: 'Dana' }, serverMessages: ['status-update', 'transcript'] },
    })) as unknown as FakeCall
    const steps: string[] = []
    for (let step = await fake.advance(); step; step = await fake.advance()) {
      steps.push(`${step.label}:${webhooksOf(call.id).length}`)
      if (step.label === 'utterance:bot') expect((await client.calls.get({ id: call.id })).status).toBe('in-progress')
    }
    expect(webhookTypes(call.id)).toEqual([
      'status-update:queued',
      'status-update:ringing',
      'status-update:in-progress',
      ...Array(10).fill('transcript'),
      'status-update:ended',
    ])
    const transcripts = webhooksOf(call.id).filter((message) => message.type === 'transcript')
    expect(transcripts.map((message) => message.transcriptType)).toEqual(Array(5).fill(['partial', 'final']).flat())
    expect(steps[3]).toBe('utterance:bot:5')
  })
})

describe('the /__fake/transport controls (for another process)', () => {
  const post = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${fake.url}/__fake/transport/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  it('sets settings, reads stats, waits, interrupts and ends', async () => {
    expect((await post('settings', { echo: 'yes' })).status).toBe(400)
    expect((await post('settings', { greetingFrames: 2, userTranscripts: ['Over HTTP.'] })).status).toBe(200)
    expect((await post('next', { settings: { greeting: 'Next call only.' } })).status).toBe(200)
    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl)
    expect((await post(`calls/${call.id}/wait`, { until: 'idle' })).body).toMatchObject({ framesOut: 2, state: 'open' })
    expect(socket.json().find((message) => message.transcriptType === 'final')?.transcript).toBe('Next call only.')

    expect((await post(`calls/${call.id}/interrupt`)).body).toEqual({ interrupted: false })
    expect((await post('hold-audio')).status).toBe(200)
    socket.sendAudio([...tone(200), ...silence(500)])
    await socket.untilJson({ type: 'transcript', role: 'user', transcriptType: 'final', transcript: 'Over HTTP.' })
    await socket.until((events) => sequence(events).at(-1) === 'audio×1')
    expect((await post(`calls/${call.id}/interrupt`)).body).toEqual({ interrupted: true })
    expect((await post('release-audio')).status).toBe(200)
    await socket.untilJson({ type: 'user-interrupted' })
    const stats = (await (await fetch(`${fake.url}/__fake/transport/calls/${call.id}`)).json()) as { userTurns: number }
    expect(stats.userTurns).toBe(1)
    expect((await post(`calls/${call.id}/end`, { endedReason: 'assistant-said-end-call-phrase' })).body).toEqual({ ended: true })
    expect((await post(`calls/${call.id}/wait`, { until: 'ended' })).body).toMatchObject({ endedReason: 'assistant-said-end-call-phrase' })
    expect((await socket.closed).code).toBe(1000)
    expect((await post(`calls/${crypto.randomUUID()}/end`)).status).toBe(404)
  })

  it('holds audio after N frames, stalls and resumes reading', async () => {
    expect((await post('hold-audio', { afterFrames: 0 })).status).toBe(400)
    expect((await post('hold-audio', { afterFrames: 3 })).status).toBe(200)
    const call = await createCall()
    const socket = await connect(call.transport.websocketCallUrl)
    await socket.until((events) => sequence(events).at(-1) === 'audio×3')
    expect((await post('release-audio')).status).toBe(200)
    await socket.untilJson({ type: 'speech-update', role: 'assistant', status: 'stopped' })
    expect(socket.frames()).toHaveLength(10)
    expect((await post(`calls/${call.id}/stall-reading`)).body).toEqual({ stalled: true })
    expect(fake.transport.stats(call.id)?.readingStalled).toBe(true)
    expect((await post(`calls/${call.id}/resume-reading`)).body).toEqual({ resumed: true })
    expect((await post(`calls/${call.id}/resume-reading`)).body).toEqual({ resumed: false })
  })
})
