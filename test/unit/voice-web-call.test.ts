import { describe, expect, it } from 'vitest'
import { CHAT_ERRORS } from '#common/chat'
import { ERRORS } from '#common/errors'
import { USAGE_TEXT } from '#common/usage'
import {
  IDLE_CALL,
  nextCall,
  VOICE_FAILURE,
  VOICE_TEXT,
  type CallEffect,
  type CallEvent,
} from '../../web/src/features/chat/voice/call-machine'
import { replay } from '../helpers/machine'

/** Runs events from idle; returns the final state and every effect in order. */
const run = (...events: CallEvent[]) => replay(nextCall, IDLE_CALL, events)

const toasts = (effects: CallEffect[]) => effects.flatMap((effect) => (effect.type === 'toast' ? [[effect.title, effect.description]] : []))
const ended = (effects: CallEffect[]) => effects.filter((effect) => effect.type === 'ended')

const start: CallEvent = { type: 'start' }
const listening: CallEvent = { type: 'listening' }
const final: CallEvent = { type: 'final-transcript' }
const CONVERSATION = '7b0c5f1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'

describe('starting a voice call (spec 2 §4, §8)', () => {
  it("goes idle → starting → listening, with 'Voice Active' once the server listens", () => {
    expect(run(start).state).toEqual({ phase: 'starting', finals: 0 })
    expect(run(start).effects).toEqual([])
    const { state, effects } = run(start, listening)
    expect(state.phase).toBe('listening')
    expect(effects).toEqual([{ type: 'toast', title: 'Voice Active', description: 'Voice assistant is now listening. Click the microphone again to end the call.', destructive: false }])
    // A repeated status says nothing new.
    expect(run(start, listening, listening).effects).toHaveLength(1)
  })

  it("a refused or missing microphone: 'Voice Error' - 'Failed to start voice input.', and back to idle", () => {
    const { state, effects } = run(start, { type: 'microphone-failed' })
    expect(state).toEqual(IDLE_CALL)
    expect(effects).toEqual([{ type: 'teardown' }, { type: 'toast', title: 'Voice Error', description: 'Failed to start voice input.', destructive: true }])
  })

  it("voice not configured on the server: 'Voice Assistant' - the spec's text, and back to idle", () => {
    const { state, effects } = run(start, { type: 'server-error', code: 'VOICE_NOT_CONFIGURED', message: ERRORS.VOICE_NOT_CONFIGURED.message })
    expect(state).toEqual(IDLE_CALL)
    expect(toasts(effects)).toEqual([[CHAT_ERRORS.voiceUnavailableTitle, 'Voice assistant is not available. Please check your configuration.']])
    expect(effects[0]).toEqual({ type: 'teardown' })
  })

  it("any other refusal before listening: 'Voice Assistant Error' with the server's message, and back to idle", () => {
    const message = ERRORS.VOICE_UNAVAILABLE.message
    const { state, effects } = run(start, { type: 'server-error', code: 'VOICE_UNAVAILABLE', message })
    expect(state).toEqual(IDLE_CALL)
    expect(toasts(effects)).toEqual([['Voice Assistant Error', message]])
    expect(ended(effects)).toEqual([])
  })

  it('no socket, a socket closed before listening, or no answer in time: our own words, never "Call Ended"', () => {
    expect(toasts(run(start, { type: 'connect-failed' }).effects)).toEqual([[VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.connectFailed]])
    expect(toasts(run(start, { type: 'socket-closed' }).effects)).toEqual([[VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.connectFailed]])
    expect(toasts(run(start, { type: 'start-timeout' }).effects)).toEqual([[VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.startTimedOut]])
    expect(run(start, listening, { type: 'start-timeout' }).state.phase).toBe('listening')
  })

  it("the plan's voice minutes used up: a toast of its own with the server's words (never 'Voice Error'), and back to idle", () => {
    const message = "You've used this month's 60 voice minutes. They come back on July 1."
    const { state, effects } = run(start, { type: 'server-error', code: 'USAGE_LIMIT_REACHED', message })
    expect(state).toEqual(IDLE_CALL)
    expect(effects).toEqual([{ type: 'teardown' }, { type: 'toast', title: USAGE_TEXT.voiceLimitTitle, description: message, destructive: false }])
    expect(toasts(effects).flat()).not.toContain('Voice Error')
  })

  it("every coaching line busy: a toast of its own with the server's words (never 'Voice Error'), not an error, and back to idle", () => {
    const message = ERRORS.VOICE_LINES_BUSY.message
    const { state, effects } = run(start, { type: 'server-error', code: 'VOICE_LINES_BUSY', message })
    expect(state).toEqual(IDLE_CALL)
    expect(effects).toEqual([
      { type: 'teardown' },
      { type: 'toast', title: 'Coaching lines are busy', description: 'All our coaching lines are busy right now. Please try again in a few minutes.', destructive: false },
    ])
    expect(ended(effects)).toEqual([])
    // The button works again at once: the next press starts a call.
    expect(nextCall(state, start).state.phase).toBe('starting')
  })

  it('only an idle call starts', () => {
    expect(run(start, listening, start).state.phase).toBe('listening')
  })
})

describe('ending a voice call', () => {
  it("the user ends: 'ending' until the server confirms, then 'Call Ended' and the saved conversation", () => {
    const asked = run(start, listening, final, { type: 'end', sent: true })
    expect(asked.state.phase).toBe('ending')
    expect(asked.effects.at(-1)).toEqual({ type: 'arm-forced-end' })
    const { state, effects } = run(start, listening, final, { type: 'end', sent: true }, { type: 'ended', reason: 'user-ended', conversationId: CONVERSATION })
    expect(state).toEqual(IDLE_CALL)
    expect(effects.slice(-3)).toEqual([
      { type: 'teardown' },
      { type: 'toast', title: 'Call Ended', description: 'Voice call has been ended.', destructive: false },
      { type: 'ended', conversationId: CONVERSATION, reply: { text: 'Voice call ended. The conversation has been processed.', tone: 'info' } },
    ])
  })

  it('a stop that gets no confirmation resets anyway (VOICE_FORCED_END_MS); a late confirmation changes nothing', () => {
    const forced = run(start, listening, { type: 'end', sent: true }, { type: 'forced-end' })
    expect(forced.state).toEqual(IDLE_CALL)
    expect(toasts(forced.effects).at(-1)).toEqual(['Call Ended', 'Voice call has been ended.'])
    expect(ended(forced.effects)).toEqual([{ type: 'ended', conversationId: null, reply: null }])
    expect(nextCall(forced.state, { type: 'ended', reason: 'user-ended', conversationId: CONVERSATION }).effects).toEqual([])
    // The timer of a call that was confirmed does nothing.
    expect(run(start, listening, { type: 'end', sent: true }, { type: 'ended', reason: 'user-ended', conversationId: null }, { type: 'forced-end' }).effects.filter((e) => e.type === 'teardown')).toHaveLength(1)
  })

  it("an `end` that cannot be sent: 'Voice Error' - 'Failed to end voice call.', and everything resets", () => {
    const { state, effects } = run(start, listening, { type: 'end', sent: false })
    expect(state).toEqual(IDLE_CALL)
    expect(effects.slice(1)).toEqual([{ type: 'teardown' }, { type: 'toast', title: 'Voice Error', description: 'Failed to end voice call.', destructive: true }])
  })

  it('the socket closing while ending is the end too', () => {
    const { state, effects } = run(start, listening, { type: 'end', sent: true }, { type: 'socket-closed' })
    expect(state).toEqual(IDLE_CALL)
    expect(toasts(effects)).toEqual([['Voice Active', VOICE_TEXT.active], ['Call Ended', 'Voice call has been ended.']])
  })
})

describe('a call ending on its own', () => {
  it("the server ends it (an 'ended' status): 'Call Ended', and the conversation when one was saved", () => {
    const { effects } = run(start, listening, final, { type: 'ended', reason: 'assistant-ended', conversationId: CONVERSATION })
    expect(toasts(effects).at(-1)).toEqual(['Call Ended', 'Voice call has been ended.'])
    expect(ended(effects)).toEqual([{ type: 'ended', conversationId: CONVERSATION, reply: { text: VOICE_TEXT.processed, tone: 'info' } }])
  })

  it("the plan's minutes ran out during the call: 'Call Ended' says so, for the month or the day; the ceiling is a plain 'Call Ended'", () => {
    const monthly = run(start, listening, final, { type: 'ended', reason: 'monthly-limit', conversationId: CONVERSATION })
    expect(toasts(monthly.effects)).toEqual([['Voice Active', VOICE_TEXT.active], ['Call Ended', USAGE_TEXT.callEndedMonthly]])
    expect(ended(monthly.effects)).toEqual([{ type: 'ended', conversationId: CONVERSATION, reply: { text: VOICE_TEXT.processed, tone: 'info' } }])
    expect(monthly.state).toEqual(IDLE_CALL)
    const daily = run(start, listening, { type: 'ended', reason: 'daily-limit', conversationId: null })
    expect(toasts(daily.effects).at(-1)).toEqual(['Call Ended', USAGE_TEXT.callEndedDaily])
    expect(toasts(run(start, listening, { type: 'ended', reason: 'max-duration', conversationId: null }).effects).at(-1)).toEqual(['Call Ended', 'Voice call has been ended.'])
  })

  it("words were said but nothing was saved, or the provider failed: 'Sorry, I couldn't process the voice call. Please try again.'", () => {
    const sorry = { text: "Sorry, I couldn't process the voice call. Please try again.", tone: 'error' }
    expect(ended(run(start, listening, final, { type: 'ended', reason: 'disconnected', conversationId: null }).effects)[0]).toMatchObject({ reply: sorry })
    expect(ended(run(start, listening, { type: 'ended', reason: 'upstream-error', conversationId: null }).effects)[0]).toMatchObject({ reply: sorry })
    // Nothing said, nothing to process: no reply.
    expect(ended(run(start, listening, { type: 'ended', reason: 'no-audio', conversationId: null }).effects)[0]).toMatchObject({ reply: null })
  })

  it("an error whose message says the call ended ends it; other errors are shown and the call goes on", () => {
    const goesOn = run(start, listening, { type: 'server-error', code: 'VALIDATION_FAILED', message: 'text: Too big' })
    expect(goesOn.state.phase).toBe('listening')
    expect(toasts(goesOn.effects).at(-1)).toEqual(['Voice Assistant Error', 'text: Too big'])
    const over = run(start, listening, { type: 'server-error', code: 'INTERNAL', message: 'The call has ended unexpectedly' })
    expect(over.state).toEqual(IDLE_CALL)
    expect(toasts(over.effects).slice(-2)).toEqual([
      ['Voice Assistant Error', 'The call has ended unexpectedly'],
      ['Call Ended', 'Voice call has been ended.'],
    ])
  })

  it("the server has no call for this socket: its text reply 'Not currently in a call.' in the chat, and the call is over here", () => {
    const { state, effects } = run(start, listening, { type: 'server-error', code: 'VOICE_NOT_ACTIVE', message: ERRORS.VOICE_NOT_ACTIVE.message })
    expect(state).toEqual(IDLE_CALL)
    expect(effects[1]).toEqual({ type: 'notice', reply: { text: 'Not currently in a call.', tone: 'error' } })
    expect(ended(effects)).toHaveLength(1)
  })

  it("the connection lost mid-call: 'Voice Assistant Error', then 'Call Ended'", () => {
    const { state, effects } = run(start, listening, { type: 'socket-closed' })
    expect(state).toEqual(IDLE_CALL)
    expect(toasts(effects).slice(-2)).toEqual([
      ['Voice Assistant Error', VOICE_FAILURE.connectionLost],
      ['Call Ended', 'Voice call has been ended.'],
    ])
  })

  it('an idle page ignores whatever a closed call still sends', () => {
    for (const event of [listening, final, { type: 'socket-closed' }, { type: 'forced-end' }, { type: 'end', sent: true }] as CallEvent[]) {
      expect(nextCall(IDLE_CALL, event)).toEqual({ state: IDLE_CALL, effects: [] })
    }
  })
})
