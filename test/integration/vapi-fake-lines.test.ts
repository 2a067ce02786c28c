import type { AddressInfo } from 'node:net'
import { type Vapi, VapiClient } from '@vapi-ai/server-sdk'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FakeVapi, lognormalTalkSeconds, type FakeCall } from '../fakes/vapi'
import { fakeClock } from '../helpers/clock'
import { manualTimers } from '../helpers/timers'

/**
 * The Vapi fake's line limit (enforceConcurrency), its call durations (talkSeconds, the
 * maxDurationSeconds cap, timeScale) and 'clock' pacing, on a test clock with manual timers.
 */

type Message = { type: string; status?: string; endedReason?: string; call: { id: string } }

const START = new Date('2026-11-21T12:00:00.000Z')
const clock = fakeClock(START)
const timers = manualTimers(clock)
let receiver: FastifyInstance
let receiverUrl = ''
const received: Message[] = []
let fake: FakeVapi
let client: VapiClient

beforeAll(async () => {
  receiver = Fastify({ logger: false, forceCloseConnections: true })
  receiver.post('/webhooks/vapi', async (request) => {
    received.push((request.body as { message: Message }).message)
    return { ok: true }
  })
  await receiver.listen({ port: 0, host: '127.0.0.1' })
  receiverUrl = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/webhooks/vapi`
  fake = await FakeVapi.start({ clock, timers: timers.timers, webhookUrl: receiverUrl, pacing: 'manual' })
  client = new VapiClient({ token: fake.apiKey, baseUrl: fake.url, maxRetries: 0 })
})

afterAll(async () => {
  await fake?.close()
  await receiver?.close()
})

afterEach(async () => {
  await fake.settled()
  fake.reset()
  fake.calls.onLinesChange = () => {}
  received.length = 0
  clock.set(START)
})

let n = 0
/** A phone call shaped like the app's daily dial, to a new number each time. */
function phoneBody(maxDurationSeconds = 300): Vapi.CreateCallDto {
  n += 1
  return {
    assistantId: 'asst_test_coach',
    phoneNumberId: 'pn_test_line',
    customer: { number: `+1202555${String(n).padStart(4, '0')}` },
    assistantOverrides: { maxDurationSeconds, serverMessages: ['status-update', 'end-of-call-report'] },
  } as Vapi.CreateCallDto
}

type Answer = FakeCall & { subscriptionLimits: { concurrencyBlocked: boolean; concurrencyLimit: number; remainingConcurrentCalls: number } }
const dial = async (body: Vapi.CreateCallDto = phoneBody()) => (await client.calls.create(body)) as unknown as Answer
const socketCall = async () => (await client.calls.create({ assistantId: 'asst_test_coach', transport: { provider: 'vapi.websocket' } } as Vapi.CreateCallDto)) as unknown as Answer

describe('the line limit', () => {
  it('is only reported unless enforced: a call past the limit still goes ahead', async () => {
    fake.calls.concurrencyLimit = 2
    await dial()
    await dial()
    const third = await dial()
    expect(third.subscriptionLimits).toEqual({ concurrencyBlocked: true, concurrencyLimit: 2, remainingConcurrentCalls: 0 })
    expect(fake.calls.refused).toBe(0)
    expect(fake.calls.activeCalls).toBe(3)
    await fake.play(third.id)
    expect(fake.calls.get(third.id)).toMatchObject({ status: 'ended', endedReason: 'customer-ended-call' })
  })

  it('refuses a phone call when phone and WebSocket calls hold every line: 201 blocked, then ended with the start error and no report', async () => {
    fake.calls.concurrencyLimit = 2
    fake.calls.enforceConcurrency = true
    const lines: number[] = []
    fake.calls.onLinesChange = (active) => lines.push(active)

    const socket = await socketCall()
    const first = await dial()
    expect(first.subscriptionLimits).toEqual({ concurrencyBlocked: false, concurrencyLimit: 2, remainingConcurrentCalls: 0 })
    expect(socket.status).toBe('queued')

    const refused = await dial()
    expect(refused.status).toBe('queued')
    expect(refused.subscriptionLimits).toEqual({ concurrencyBlocked: true, concurrencyLimit: 2, remainingConcurrentCalls: 0 })
    expect(fake.calls.refused).toBe(1)
    expect(fake.calls.activeCalls).toBe(2)

    // Its number's scenario does not matter: a refused call never connects.
    await fake.play(refused.id)
    const sent = received.filter((message) => message.call.id === refused.id)
    expect(sent.map((message) => [message.type, message.status, message.endedReason])).toEqual([
      ['status-update', 'ended', 'call.start.error-subscription-concurrency-limit-reached'],
    ])
    expect(fake.calls.get(refused.id)).toMatchObject({ status: 'ended', endedReason: 'call.start.error-subscription-concurrency-limit-reached' })
    expect(fake.calls.activeCalls).toBe(2)

    // The answered call ends and gives its line back: the next dial is accepted.
    await fake.play(first.id)
    expect(fake.calls.activeCalls).toBe(1)
    const next = await dial()
    expect(next.subscriptionLimits).toEqual({ concurrencyBlocked: false, concurrencyLimit: 2, remainingConcurrentCalls: 0 })
    expect(fake.calls.refused).toBe(1)
    expect(lines).toEqual([1, 2, 1, 2])

    const overHttp = (await (await fetch(`${fake.url}/__fake/lines`)).json()) as Record<string, unknown>
    expect(overHttp).toEqual({ concurrencyLimit: 2, enforceConcurrency: true, active: 2, refused: 1 })
  })

  it('refuses the customers of a batch past the limit, and is switched on over HTTP', async () => {
    const response = await fetch(`${fake.url}/__fake/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ concurrencyLimit: 1, enforceConcurrency: true }) })
    expect(response.status).toBe(200)
    const body = { ...phoneBody(), customer: undefined, customers: [{ number: '+12025550901' }, { number: '+12025550902' }] }
    const batch = (await client.calls.create(body as Vapi.CreateCallDto)) as Vapi.CallBatchResponse
    expect(batch.subscriptionLimits).toMatchObject({ concurrencyBlocked: true, remainingConcurrentCalls: 0 })
    expect(fake.calls.refused).toBe(1)
    expect(fake.calls.activeCalls).toBe(1)
    const [accepted, refused] = batch.results
    await fake.play(refused!.id)
    await fake.play(accepted!.id)
    expect(fake.calls.get(refused!.id)?.endedReason).toBe('call.start.error-subscription-concurrency-limit-reached')
    expect(fake.calls.get(accepted!.id)?.endedReason).toBe('customer-ended-call')
  })
})

/** Lets the fake's play loop run until it waits on a timer (or has nothing left), then fires the earliest. */
async function fireNext(): Promise<boolean> {
  for (let turn = 0; turn < 50; turn += 1) {
    const [next] = timers.armed()
    if (next) {
      timers.advanceTo(next)
      return true
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  return false
}

describe("durations and 'clock' pacing", () => {
  it('draws the same lognormal talk time for the same number and seed, with the asked median', () => {
    const draw = lognormalTalkSeconds({ medianSeconds: 210, sigma: 0.5, seed: 7 })
    const call = (number: string) => ({ id: 'x', customer: { number } })
    expect(draw(call('+12025550001'))).toBe(draw(call('+12025550001')))
    expect(draw(call('+12025550001'))).not.toBe(lognormalTalkSeconds({ seed: 8 })(call('+12025550001')))
    const seconds = Array.from({ length: 2001 }, (_, i) => draw(call(`+1202556${String(i).padStart(4, '0')}`))).sort((a, b) => a - b)
    expect(seconds[1000]!).toBeGreaterThan(195)
    expect(seconds[1000]!).toBeLessThan(225)
    // sigma 0.5: the 84th percentile is about e^0.5 (1.65) times the median.
    expect(seconds[Math.round(2000 * 0.841)]! / seconds[1000]!).toBeGreaterThan(1.5)
    expect(seconds[Math.round(2000 * 0.841)]! / seconds[1000]!).toBeLessThan(1.8)
  })

  it('holds the line for the drawn, scaled duration on the clock, capped by maxDurationSeconds', async () => {
    fake.calls.configureWebhooks({ url: undefined })
    fake.calls.pacing = 'clock'
    fake.calls.timeScale = 30
    fake.calls.enforceConcurrency = true
    fake.calls.concurrencyLimit = 1
    const talk = new Map([['+12025550701', 120], ['+12025550702', 10_000]])
    fake.calls.talkSeconds = (call) => talk.get(call.customer?.number ?? '') ?? 150
    const changes: Array<{ at: number; active: number }> = []
    fake.calls.onLinesChange = (active) => changes.push({ at: clock.now().getTime() - START.getTime(), active })

    const short = await dial({ ...phoneBody(300), customer: { number: '+12025550701' } })
    // One line: a second call now is refused.
    expect((await dial()).subscriptionLimits.concurrencyBlocked).toBe(true)
    while (fake.calls.get(short.id)?.status !== 'ended') expect(await fireNext()).toBe(true)
    // Ring 1 s, answer 6 s, talk 120 s, all divided by 30: in progress at +200 ms, ended at +4,200 ms.
    expect(fake.calls.get(short.id)).toMatchObject({ startedAt: new Date(START.getTime() + 200).toISOString(), endedAt: new Date(START.getTime() + 4200).toISOString(), endedReason: 'customer-ended-call' })
    // The refused call never held the line.
    expect(changes).toEqual([{ at: 0, active: 1 }, { at: 4200, active: 0 }])

    clock.set(new Date(START.getTime() + 10_000))
    const long = await dial({ ...phoneBody(300), customer: { number: '+12025550702' } })
    while (fake.calls.get(long.id)?.status !== 'ended') expect(await fireNext()).toBe(true)
    // Capped at 300 s (10 s scaled) and ended as Vapi ends it.
    expect(fake.calls.get(long.id)).toMatchObject({ startedAt: new Date(START.getTime() + 10_200).toISOString(), endedAt: new Date(START.getTime() + 20_200).toISOString(), endedReason: 'exceeded-max-duration' })
    await fake.settled()
    expect(fake.calls.refused).toBe(1)
  })
})
