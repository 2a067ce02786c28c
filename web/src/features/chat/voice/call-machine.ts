/**
 * The voice call's states and what each event makes the page say (spec 2 §4 "Voice call", §8), as
 * pure code: the hook (use-voice-call.ts) feeds it events and carries out the effects; the unit
 * tests check every path's texts.
 *
 * idle → starting (the mic button) → listening (the server says so) → ending (the button again) →
 * idle. Any state ends on the server's `ended`, on an error that says the call ended, on the
 * socket closing, or (while ending) when no confirmation came within VOICE_FORCED_END_MS. The
 * plan's voice minutes (docs/decisions/061) have their own words: a start refused for them, and
 * 'Call Ended' saying they ran out; so does a start refused because every coaching line is in use
 * (docs/decisions/070).
 */
import { CHAT_ERRORS } from '#common/chat'
import { USAGE_TEXT } from '#common/usage'
import type { VoiceEndReason } from '#common/voice'

/** The spec's voice texts (spec 2 §8). */
export const VOICE_TEXT = {
  activeTitle: 'Voice Active',
  active: 'Voice assistant is now listening. Click the microphone again to end the call.',
  endedTitle: 'Call Ended',
  ended: 'Voice call has been ended.',
  errorTitle: 'Voice Error',
  startFailed: 'Failed to start voice input.',
  endFailed: 'Failed to end voice call.',
  assistantErrorTitle: 'Voice Assistant Error',
  /** Text replies in the chat. */
  notInitialized: 'Sorry, the voice service is not initialized. Please try again later.',
  notInCall: 'Not currently in a call.',
  processed: 'Voice call ended. The conversation has been processed.',
  processFailed: "Sorry, I couldn't process the voice call. Please try again.",
} as const

/** Our own words for failures the spec gives no text for. */
export const VOICE_FAILURE = {
  connectFailed: 'Could not connect to the voice assistant. Please try again.',
  connectionLost: 'The connection to the voice assistant was lost.',
  startTimedOut: 'The voice assistant did not answer. Please try again.',
  /** Every coaching line in use (VOICE_LINES_BUSY): the title over the server's words (docs/decisions/070). */
  linesBusyTitle: 'Coaching lines are busy',
} as const

export type VoicePhase = 'idle' | 'starting' | 'listening' | 'ending'

export type CallState = Readonly<{ phase: VoicePhase; /** Final transcripts heard in this call. */ finals: number }>

export const IDLE_CALL: CallState = { phase: 'idle', finals: 0 }

export type CallEvent =
  /** The mic button while idle (the configuration is known to be usable). */
  | { type: 'start' }
  /** The microphone could not be had, or the audio could not start. */
  | { type: 'microphone-failed' }
  /** The socket could not be opened, or the server did not greet. */
  | { type: 'connect-failed' }
  | { type: 'listening' }
  | { type: 'final-transcript' }
  | { type: 'ended'; reason: VoiceEndReason; conversationId: string | null }
  | { type: 'server-error'; code: string; message: string }
  | { type: 'socket-closed' }
  /** The mic button while listening; `sent`: the `end` message went out. */
  | { type: 'end'; sent: boolean }
  /** VOICE_FORCED_END_MS passed while ending with no `ended`. */
  | { type: 'forced-end' }
  /** The server did not say `listening` in time. */
  | { type: 'start-timeout' }

export type ChatReply = { text: string; tone: 'info' | 'error' }

export type CallEffect =
  | { type: 'toast'; title: string; description: string; destructive: boolean }
  /** One of the chat's own notices (never saved). */
  | { type: 'notice'; reply: ChatReply }
  /** Release the microphone, the audio and the socket; reset every flag. */
  | { type: 'teardown' }
  /** The call is over: the chat shows the saved conversation (if any), then the reply (if any). */
  | { type: 'ended'; conversationId: string | null; reply: ChatReply | null }
  /** Start the VOICE_FORCED_END_MS timer. */
  | { type: 'arm-forced-end' }

type Transition = { state: CallState; effects: CallEffect[] }

const toast = (title: string, description: string, destructive = false): CallEffect => ({ type: 'toast', title, description, destructive })
const callEnded = toast(VOICE_TEXT.endedTitle, VOICE_TEXT.ended)

/** 'Call Ended' with why, when the plan's voice minutes ran out (the spec's text otherwise). */
const endedFor = (reason: VoiceEndReason | null): CallEffect =>
  reason === 'monthly-limit' ? toast(VOICE_TEXT.endedTitle, USAGE_TEXT.callEndedMonthly) : reason === 'daily-limit' ? toast(VOICE_TEXT.endedTitle, USAGE_TEXT.callEndedDaily) : callEnded

/** The end of a call that was going: teardown, 'Call Ended', and the chat told. */
function over(conversationId: string | null, reply: ChatReply | null, before: CallEffect[] = [], reason: VoiceEndReason | null = null): Transition {
  return { state: IDLE_CALL, effects: [...before, { type: 'teardown' }, endedFor(reason), { type: 'ended', conversationId, reply }] }
}

/** A start that did not get as far as a call: teardown and one toast. */
const abandoned = (effect: CallEffect): Transition => ({ state: IDLE_CALL, effects: [{ type: 'teardown' }, effect] })

const unchanged = (state: CallState): Transition => ({ state, effects: [] })

/** What the chat says after a call the server did not report saved. */
const replyAfter = (state: CallState, failed: boolean): ChatReply | null =>
  failed || state.finals > 0 ? { text: VOICE_TEXT.processFailed, tone: 'error' } : null

export function nextCall(state: CallState, event: CallEvent): Transition {
  const { phase } = state
  switch (event.type) {
    case 'start':
      return phase === 'idle' ? { state: { phase: 'starting', finals: 0 }, effects: [] } : unchanged(state)
    case 'microphone-failed':
      return phase === 'starting' ? abandoned(toast(VOICE_TEXT.errorTitle, VOICE_TEXT.startFailed, true)) : unchanged(state)
    case 'connect-failed':
      return phase === 'starting' ? abandoned(toast(VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.connectFailed, true)) : unchanged(state)
    case 'start-timeout':
      return phase === 'starting' ? abandoned(toast(VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.startTimedOut, true)) : unchanged(state)
    case 'listening':
      return phase === 'starting' ? { state: { ...state, phase: 'listening' }, effects: [toast(VOICE_TEXT.activeTitle, VOICE_TEXT.active)] } : unchanged(state)
    case 'final-transcript':
      return phase === 'idle' ? unchanged(state) : { state: { ...state, finals: state.finals + 1 }, effects: [] }
    case 'ended':
      if (phase === 'idle') return unchanged(state)
      return over(
        event.conversationId,
        event.conversationId ? { text: VOICE_TEXT.processed, tone: 'info' } : replyAfter(state, event.reason === 'upstream-error'),
        [],
        event.reason,
      )
    case 'server-error': {
      if (phase === 'idle') return unchanged(state)
      if (event.code === 'VOICE_NOT_ACTIVE') {
        // The server holds no call for this socket: its text reply ('Not currently in a call.').
        const notice: CallEffect = { type: 'notice', reply: { text: event.message, tone: 'error' } }
        return phase === 'starting' ? abandoned(notice) : over(null, null, [notice])
      }
      const said =
        event.code === 'VOICE_NOT_CONFIGURED'
          ? toast(CHAT_ERRORS.voiceUnavailableTitle, CHAT_ERRORS.voiceUnavailable)
          : event.code === 'USAGE_LIMIT_REACHED'
            ? // The plan's minutes are spent: the server says how many and when they come back.
              toast(USAGE_TEXT.voiceLimitTitle, event.message)
            : event.code === 'VOICE_LINES_BUSY'
              ? // Every line is in use: nothing is wrong, the person tries again in a few minutes.
                toast(VOICE_FAILURE.linesBusyTitle, event.message)
              : toast(VOICE_TEXT.assistantErrorTitle, event.message, true)
      // The call cannot go on: it never started, or the error says it ended (spec 2 §4).
      if (phase === 'starting') return abandoned(said)
      if (/ended/i.test(event.message)) return over(null, replyAfter(state, false), [said])
      return { state, effects: [said] }
    }
    case 'socket-closed':
      if (phase === 'idle') return unchanged(state)
      if (phase === 'starting') return abandoned(toast(VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.connectFailed, true))
      if (phase === 'ending') return over(null, null)
      return over(null, replyAfter(state, false), [toast(VOICE_TEXT.assistantErrorTitle, VOICE_FAILURE.connectionLost, true)])
    case 'end':
      if (phase !== 'listening') return unchanged(state)
      if (!event.sent) return abandoned(toast(VOICE_TEXT.errorTitle, VOICE_TEXT.endFailed, true))
      return { state: { ...state, phase: 'ending' }, effects: [{ type: 'arm-forced-end' }] }
    case 'forced-end':
      // No confirmation: the page resets anyway; closing the socket makes the server end the call.
      return phase === 'ending' ? over(null, null) : unchanged(state)
  }
}
