import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { VoiceServerMessage } from '#common/voice'
import { AppError } from '#server/lib/app-error'
import { createCallWatch, WATCH_BUFFER_MAX } from '#server/services/call-watch'
import { memoryClusterBus, type CallWatchEvent, type ClusterBus } from '#server/services/cluster-bus'

const log = pino({ level: 'silent' })
const CALL = '6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11'
const status = (value: 'queued' | 'ringing' | 'in-progress' | 'ended', callId = CALL): CallWatchEvent => ({ type: 'phone-call', callId, status: value, endedReason: value === 'ended' ? 'customer-ended-call' : null })
const line = (text: string): CallWatchEvent => ({ type: 'phone-transcript', callId: CALL, role: 'user', text })

/** A promise the test settles. */
function held<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: Error) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const flush = () => new Promise((resolve) => setImmediate(resolve))

describe('a watching socket', () => {
  it('gets the calls live now first, then what was published meanwhile (bounded), then every event', async () => {
    const bus = memoryClusterBus(() => 0)
    const current = held<CallWatchEvent[]>()
    const live = createCallWatch({ bus, log, current: () => current.promise, end: async () => {} })
    const sent: VoiceServerMessage[] = []
    live.watch('u1', (message) => sent.push(message))

    // Published while the current state loads: held, not sent before it.
    await bus.publish('u1', line('first'))
    await bus.publish('u2', line('someone else'))
    expect(sent).toEqual([])
    current.resolve([status('ringing')])
    await flush()
    expect(sent).toEqual([status('ringing'), line('first')])

    await bus.publish('u1', line('second'))
    expect(sent.at(-1)).toEqual(line('second'))
  })

  it('never moves a call’s status back: a status older than one it was sent is dropped', async () => {
    const bus = memoryClusterBus(() => 0)
    const current = held<CallWatchEvent[]>()
    const live = createCallWatch({ bus, log, current: () => current.promise, end: async () => {} })
    const sent: VoiceServerMessage[] = []
    live.watch('u1', (message) => sent.push(message))

    // Ringing was published before the state was read, which already says in progress.
    await bus.publish('u1', status('ringing'))
    current.resolve([status('in-progress')])
    await flush()
    await bus.publish('u1', status('in-progress'))
    await bus.publish('u1', status('ended'))
    await bus.publish('u1', status('ringing'))
    // Another call has its own order.
    await bus.publish('u1', status('queued', '0b0c7a0e-7c64-4b5e-8a55-61c3f1a3b2d4'))
    expect(sent).toEqual([status('in-progress'), status('ended'), status('queued', '0b0c7a0e-7c64-4b5e-8a55-61c3f1a3b2d4')])
  })

  it('holds at most WATCH_BUFFER_MAX events while the state loads, dropping the oldest', async () => {
    const bus = memoryClusterBus(() => 0)
    const current = held<CallWatchEvent[]>()
    const live = createCallWatch({ bus, log, current: () => current.promise, end: async () => {} })
    const sent: VoiceServerMessage[] = []
    live.watch('u1', (message) => sent.push(message))
    for (let i = 0; i < WATCH_BUFFER_MAX + 5; i++) await bus.publish('u1', line(`line ${i}`))
    current.resolve([])
    await flush()
    expect(sent).toHaveLength(WATCH_BUFFER_MAX)
    expect(sent[0]).toEqual(line('line 5'))
  })

  it('says so when the channel cannot be subscribed, and still sends the calls live now', async () => {
    const failing: ClusterBus = {
      ...memoryClusterBus(() => 0),
      publish: async () => {},
      subscribe: () => ({ ready: Promise.reject(new Error('Redis is down')), unsubscribe: () => {} }),
      close: async () => {},
    }
    const live = createCallWatch({ bus: failing, log, current: async () => [status('in-progress')], end: async () => {} })
    const sent: VoiceServerMessage[] = []
    live.watch('u1', (message) => sent.push(message))
    await flush()
    expect(sent).toEqual([{ type: 'error', code: 'SERVICE_UNAVAILABLE', message: 'Live call updates are not available right now.' }, status('in-progress')])
  })

  it('stops at once when unwatched (nothing after, not even the state that was loading)', async () => {
    const bus = memoryClusterBus(() => 0)
    const current = held<CallWatchEvent[]>()
    const live = createCallWatch({ bus, log, current: () => current.promise, end: async () => {} })
    const sent: VoiceServerMessage[] = []
    const unwatch = live.watch('u1', (message) => sent.push(message))
    unwatch()
    current.resolve([status('ringing')])
    await flush()
    await bus.publish('u1', line('after'))
    expect(sent).toEqual([])
  })

  it('passes the calls service’s refusals through and hides any other failure behind SERVICE_UNAVAILABLE', async () => {
    const bus = memoryClusterBus(() => 0)
    const refusing = createCallWatch({ bus, log, current: async () => [], end: async () => Promise.reject(new AppError('CALL_NOT_LIVE')) })
    await expect(refusing.endPhoneCall('u1', CALL)).rejects.toMatchObject({ code: 'CALL_NOT_LIVE' })
    const broken = createCallWatch({ bus, log, current: async () => [], end: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:443')) })
    await expect(broken.endPhoneCall('u1', CALL)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The call could not be ended right now. Please try again.' })
  })
})

describe('the in-process bus', () => {
  it('delivers to the user’s listeners only, publishes a keyed event once (for two hours), and forgets a listener that left', async () => {
    let now = 0
    const bus = memoryClusterBus(() => now)
    const heard: string[] = []
    const a = bus.subscribe('u1', (event) => heard.push(`a:${event.type === 'phone-transcript' ? event.text : event.type === 'phone-call' ? event.status : event.type}`))
    bus.subscribe('u1', (event) => {
      heard.push(`b:${event.type}`)
      throw new Error('one listener failing stops no other')
    })
    bus.subscribe('u2', () => heard.push('u2'))
    await bus.publish('u1', line('hello'), 'call:user:1')
    await bus.publish('u1', line('hello again'), 'call:user:1')
    now += 2 * 3_600_000 + 1
    await bus.publish('u1', line('much later'), 'call:user:1')
    a.unsubscribe()
    await bus.publish('u1', line('gone'))
    expect(heard).toEqual(['a:hello', 'b:phone-transcript', 'a:much later', 'b:phone-transcript', 'b:phone-transcript'])
  })
})
