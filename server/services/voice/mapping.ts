/**
 * Vapi's socket messages (flat JSON with `type`, brief §2.3) mapped into the gateway's protocol
 * (common/voice.ts). Only a whitelist is read, and only the fields named here are copied out as
 * fresh values: nothing of Vapi's own (URLs, ids, keys, raw payloads) can reach the browser.
 */
import { STORED_MESSAGE_MAX } from '#common/chat'
import { storableText, truncateText } from '#common/text'
import type { VoiceEndReason, VoiceServerMessage } from '#common/voice'

/** What one Vapi message means for the voice call. */
export type UpstreamEvent =
  /** The call is live (status-update in-progress). */
  | { kind: 'live' }
  /** Vapi ended the call (status-update ended), with its reason mapped. */
  | { kind: 'ended'; reason: VoiceEndReason; endedReason: string | null }
  /** A message for the browser. */
  | { kind: 'relay'; message: Extract<VoiceServerMessage, { type: 'transcript' | 'speech' | 'interrupted' }> }
  /** A final transcript, to be saved (after the relay). */
  | { kind: 'final'; role: 'user' | 'assistant'; text: string }

/** Vapi's ended reasons (brief §3.5) as the browser is told them. */
const ASSISTANT_ENDED = new Set([
  'assistant-ended-call',
  'assistant-said-end-call-phrase',
  'assistant-ended-call-after-message-spoken',
  'assistant-ended-call-with-hangup-task',
  'assistant-forwarded-call',
])
const NO_AUDIO = new Set(['silence-timed-out', 'call.in-progress.error-assistant-did-not-receive-customer-audio', 'customer-did-not-give-microphone-permission'])

export function endReasonOf(endedReason: string | null | undefined): VoiceEndReason {
  const reason = endedReason ?? ''
  if (reason === 'customer-ended-call') return 'user-ended'
  if (ASSISTANT_ENDED.has(reason)) return 'assistant-ended'
  if (reason === 'exceeded-max-duration') return 'max-duration'
  if (NO_AUDIO.has(reason)) return 'no-audio'
  return 'upstream-error'
}

/** A transcript's text as we keep it: a string, storable, at most STORED_MESSAGE_MAX characters; else null. */
export function transcriptText(value: unknown): string | null {
  if (typeof value !== 'string') return null
  return truncateText(storableText(value), STORED_MESSAGE_MAX)
}

const roleOf = (value: unknown): 'user' | 'assistant' | null => (value === 'user' || value === 'assistant' ? value : null)

/**
 * The events of one Vapi message. `assistantSpeaking`: whether the assistant is talking (from the
 * speech updates so far): the user starting to speak over it is an interruption too (brief §9).
 */
export function mapVapiMessage(message: unknown, assistantSpeaking: boolean): UpstreamEvent[] {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return []
  const m = message as Record<string, unknown>
  const type = typeof m.type === 'string' ? m.type : ''
  switch (type) {
    case 'status-update': {
      if (m.status === 'in-progress') return [{ kind: 'live' }]
      if (m.status === 'ended') {
        const endedReason = typeof m.endedReason === 'string' ? m.endedReason : null
        return [{ kind: 'ended', reason: endReasonOf(endedReason), endedReason }]
      }
      return []
    }
    case 'transcript':
    case 'transcript[transcriptType="final"]': {
      const role = roleOf(m.role)
      const text = transcriptText(m.transcript)
      if (!role || text === null) return []
      const final = type !== 'transcript' || m.transcriptType === 'final'
      if (!final && m.transcriptType !== 'partial') return []
      const events: UpstreamEvent[] = [{ kind: 'relay', message: { type: 'transcript', role, final, text } }]
      if (final) events.push({ kind: 'final', role, text })
      return events
    }
    case 'speech-update': {
      const role = roleOf(m.role)
      const status = m.status === 'started' || m.status === 'stopped' ? m.status : null
      if (!role || !status) return []
      const events: UpstreamEvent[] = []
      // The user talking over the assistant: the browser drops the assistant audio it holds.
      if (role === 'user' && status === 'started' && assistantSpeaking) events.push({ kind: 'relay', message: { type: 'interrupted' } })
      events.push({ kind: 'relay', message: { type: 'speech', role, status } })
      return events
    }
    case 'user-interrupted':
      return [{ kind: 'relay', message: { type: 'interrupted' } }]
    default:
      return []
  }
}
