/**
 * The dashboard's "Live call" card as plain state (the unit tests run it in Node): what the voice
 * gateway's `phone-call` and `phone-transcript` messages say about the person's phone call live
 * now, the rolling transcript (final lines only), and the "End call" request in flight.
 */
import type { LiveCallStatus, VoiceServerMessage } from '#common/voice'

/** Lines the card keeps (the oldest go first); the whole transcript is on the call's page afterwards. */
export const LIVE_LINES_MAX = 100

export type LiveLine = { id: number; role: 'user' | 'assistant'; text: string }

export type LiveCall = {
  callId: string
  status: LiveCallStatus
  endedReason: string | null
  lines: LiveLine[]
  /** "End call" was sent and the call has not ended yet. */
  ending: boolean
  /** Why the last "End call" was refused, to show on the card. */
  endError: string | null
}

export type LiveCallState = { call: LiveCall | null; nextLineId: number }

export const initialLiveCallState: LiveCallState = { call: null, nextLineId: 1 }

export type LiveCallAction =
  | { type: 'message'; message: VoiceServerMessage }
  /** The person asked to end the call (the socket sent end-phone-call). */
  | { type: 'ending'; callId: string }
  /** "End call" could not be sent (the socket is not open). */
  | { type: 'end-failed'; message: string }
  /** The person closed the card of a call that ended. */
  | { type: 'dismiss' }

const RANK: Record<LiveCallStatus, number> = { queued: 0, ringing: 1, 'in-progress': 2, ended: 3 }

const fresh = (callId: string, status: LiveCallStatus): LiveCall => ({ callId, status, endedReason: null, lines: [], ending: false, endError: null })

export function liveCallReducer(state: LiveCallState, action: LiveCallAction): LiveCallState {
  const { call } = state
  switch (action.type) {
    case 'ending':
      return call?.callId === action.callId ? { ...state, call: { ...call, ending: true, endError: null } } : state
    case 'end-failed':
      return call ? { ...state, call: { ...call, ending: false, endError: action.message } } : state
    case 'dismiss':
      return call?.status === 'ended' ? { ...state, call: null } : state
    case 'message':
      break
  }
  const message = action.message
  switch (message.type) {
    case 'phone-call': {
      if (call?.callId === message.callId) {
        // A status never goes back.
        if (RANK[message.status] <= RANK[call.status]) return state
        const ended = message.status === 'ended'
        return { ...state, call: { ...call, status: message.status, endedReason: message.endedReason, ending: ended ? false : call.ending, endError: ended ? null : call.endError } }
      }
      // Another call: one that is live replaces the card (a call that ended while unseen does not).
      if (message.status === 'ended') return state
      if (call && call.status !== 'ended' && RANK[message.status] < RANK[call.status]) return state
      return { ...state, call: fresh(message.callId, message.status) }
    }
    case 'phone-transcript': {
      const target = call?.callId === message.callId ? call : call && call.status !== 'ended' ? null : fresh(message.callId, 'in-progress')
      if (!target) return state
      const lines = [...target.lines, { id: state.nextLineId, role: message.role, text: message.text }].slice(-LIVE_LINES_MAX)
      return { call: { ...target, lines }, nextLineId: state.nextLineId + 1 }
    }
    case 'error':
      // On the dashboard's socket an error answers "End call" (watching itself never fails loudly).
      return call?.ending ? { ...state, call: { ...call, ending: false, endError: endErrorText(message.code, message.message) } } : state
    default:
      return state
  }
}

/** What the card says when "End call" is refused. */
export function endErrorText(code: string, message: string): string {
  switch (code) {
    case 'CALL_NOT_LIVE':
      return 'This call has already ended.'
    case 'NOT_FOUND':
      return 'This call could not be found.'
    case 'RATE_LIMITED':
      return 'Too many requests. Please wait a moment and try again.'
    default:
      return message || 'The call could not be ended right now. Please try again.'
  }
}

/** The call's state in words, as the card shows it. */
export function liveStatusText(status: LiveCallStatus): string {
  switch (status) {
    case 'queued':
      return 'Calling you…'
    case 'ringing':
      return 'Ringing…'
    case 'in-progress':
      return 'In progress'
    case 'ended':
      return 'Call ended'
  }
}
