import { describe, expect, it } from 'vitest'
import { endErrorText, initialLiveCallState, LIVE_LINES_MAX, liveCallReducer, liveStatusText, type LiveCallAction, type LiveCallState } from '../../web/src/features/dashboard/live-call/live-call-state'
import { reconnectDelayMs } from '../../web/src/features/dashboard/live-call/live-socket'

const A = '6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11'
const B = '0b0c7a0e-7c64-4b5e-8a55-61c3f1a3b2d4'
const status = (callId: string, value: 'queued' | 'ringing' | 'in-progress' | 'ended', endedReason: string | null = null): LiveCallAction => ({
  type: 'message',
  message: { type: 'phone-call', callId, status: value, endedReason },
})
const line = (callId: string, role: 'user' | 'assistant', text: string): LiveCallAction => ({ type: 'message', message: { type: 'phone-transcript', callId, role, text } })
const error = (code: string, message: string): LiveCallAction => ({ type: 'message', message: { type: 'error', code, message } })
const run = (...actions: LiveCallAction[]): LiveCallState => actions.reduce(liveCallReducer, initialLiveCallState)

describe('the Live call card’s state', () => {
  it('follows a call from ringing to its end, with its final lines in order', () => {
    const state = run(status(A, 'ringing'), status(A, 'in-progress'), line(A, 'assistant', 'Hi Avery'), line(A, 'user', 'Hello'), status(A, 'ended', 'customer-ended-call'))
    expect(state.call).toMatchObject({ callId: A, status: 'ended', endedReason: 'customer-ended-call', ending: false })
    expect(state.call!.lines.map((l) => [l.role, l.text])).toEqual([
      ['assistant', 'Hi Avery'],
      ['user', 'Hello'],
    ])
    // Each line has its own key.
    expect(new Set(state.call!.lines.map((l) => l.id)).size).toBe(2)
  })

  it('never moves a status back, ignores an end it never saw live, and shows a transcript whose status is still on its way', () => {
    expect(run(status(A, 'in-progress'), status(A, 'ringing')).call!.status).toBe('in-progress')
    expect(run(status(A, 'ended', 'customer-busy')).call).toBeNull()
    expect(run(line(A, 'assistant', 'Hi')).call).toMatchObject({ callId: A, status: 'in-progress' })
  })

  it('keeps the live call when another call’s older news arrives, and shows a new call once the last one ended', () => {
    const live = run(status(A, 'in-progress'), status(B, 'queued'), line(B, 'user', 'not this one'))
    expect(live.call).toMatchObject({ callId: A, status: 'in-progress', lines: [] })
    const next = run(status(A, 'in-progress'), status(A, 'ended'), status(B, 'ringing'))
    expect(next.call).toMatchObject({ callId: B, status: 'ringing', lines: [] })
  })

  it('keeps the newest LIVE_LINES_MAX lines', () => {
    const actions = [status(A, 'in-progress'), ...Array.from({ length: LIVE_LINES_MAX + 3 }, (_, i) => line(A, 'user', `line ${i}`))]
    const { lines } = run(...actions).call!
    expect(lines).toHaveLength(LIVE_LINES_MAX)
    expect(lines[0]!.text).toBe('line 3')
  })

  it('"End call": ending until the call ends; a refusal is shown and lets the person try again', () => {
    const ending = run(status(A, 'in-progress'), { type: 'ending', callId: A })
    expect(ending.call).toMatchObject({ ending: true, endError: null })
    expect(liveCallReducer(ending, status(A, 'ended', 'customer-ended-call')).call).toMatchObject({ status: 'ended', ending: false })
    const refused = liveCallReducer(ending, error('CALL_NOT_LIVE', 'This call is not under way.'))
    expect(refused.call).toMatchObject({ ending: false, endError: 'This call has already ended.' })
    // An error while nothing is being ended (the watch's own trouble) changes nothing on the card.
    expect(liveCallReducer(run(status(A, 'in-progress')), error('SERVICE_UNAVAILABLE', 'x')).call!.endError).toBeNull()
    expect(liveCallReducer(ending, { type: 'end-failed', message: 'Not connected' }).call).toMatchObject({ ending: false, endError: 'Not connected' })
  })

  it('is dismissed only once the call ended', () => {
    expect(liveCallReducer(run(status(A, 'in-progress')), { type: 'dismiss' }).call).not.toBeNull()
    expect(liveCallReducer(run(status(A, 'in-progress'), status(A, 'ended')), { type: 'dismiss' }).call).toBeNull()
  })

  it('says where the call is and why an end was refused, in words', () => {
    expect(['queued', 'ringing', 'in-progress', 'ended'].map((s) => liveStatusText(s as 'queued'))).toEqual(['Calling you…', 'Ringing…', 'In progress', 'Call ended'])
    expect(endErrorText('NOT_FOUND', 'x')).toBe('This call could not be found.')
    expect(endErrorText('SERVICE_UNAVAILABLE', 'The call could not be ended right now. Please try again.')).toBe('The call could not be ended right now. Please try again.')
  })
})

describe('the dashboard’s socket', () => {
  it('waits longer after each drop before opening again (a minute at most)', () => {
    expect([0, 1, 2, 5, 6, 20].map(reconnectDelayMs)).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000])
  })
})
