import { z } from 'zod'
import { text } from './text'

/**
 * Whether voice is configured, and the assistant to talk to. Replaces the original `vapi-config`,
 * which handed the private API key to the browser: the key never leaves the server.
 */
export const VoiceConfigResponseSchema = z.object({
  available: z.boolean(),
  assistantId: text().nullable(),
  /** Why voice is not available, when it is not. */
  reason: text().nullable(),
})
export type VoiceConfigResponse = z.infer<typeof VoiceConfigResponseSchema>

// ---- The voice gateway's protocol (`GET /api/voice`, a WebSocket) ----------------------------
//
// Binary frames carry audio: PCM16 little-endian, mono, 16 kHz, 20 ms (640 bytes) per frame from
// the browser; the assistant's audio comes back in the same format. Text frames carry one JSON
// object each, one of the messages below. Nothing of Vapi's own (URLs, keys, raw payloads) is ever
// sent to the browser: the server maps a whitelist of Vapi's messages into these.

/** The protocol's version: the server greets with it, the browser's `start` names it. */
export const VOICE_PROTOCOL_VERSION = 1
export const VOICE_SAMPLE_RATE = 16_000
export const VOICE_FRAME_MS = 20
/** One 20 ms frame of PCM16 mono at 16 kHz. */
export const VOICE_FRAME_BYTES = (VOICE_SAMPLE_RATE / 1000) * VOICE_FRAME_MS * 2
/** Larger frames close the socket with 1009. */
export const VOICE_MAX_BINARY_FRAME_BYTES = 4096
export const VOICE_MAX_TEXT_FRAME_BYTES = 8192
/** Audio arriving faster than this times real time closes the socket with 1008. */
export const VOICE_MAX_AUDIO_RATE = 1.5
/** A voice call that hears no audio for this long ends. */
export const VOICE_IDLE_TIMEOUT_MS = 60_000
/** A stop with no confirmation resets the browser's state after this long (spec 2, §9). */
export const VOICE_FORCED_END_MS = 2000
/** A typed message sent into a voice call. */
export const VOICE_TEXT_MAX = 4000

/**
 * Why a voice call ended, as the browser is told. `max-duration`: the ceiling of one call
 * (common/usage.ts); `monthly-limit` / `daily-limit`: the plan's voice minutes for the month, or
 * for the day, ran out during the call.
 */
export const VOICE_END_REASONS = [
  'user-ended',
  'assistant-ended',
  'max-duration',
  'monthly-limit',
  'daily-limit',
  'no-audio',
  'disconnected',
  'signed-out',
  'server-restarting',
  'upstream-error',
] as const
export type VoiceEndReason = (typeof VOICE_END_REASONS)[number]

/** Phone-call statuses a watching dashboard is told (the daily call's live card). */
export const LIVE_CALL_STATUSES = ['queued', 'ringing', 'in-progress', 'ended'] as const
export type LiveCallStatus = (typeof LIVE_CALL_STATUSES)[number]

const role = z.enum(['user', 'assistant'])

/** Browser → server (text frames). */
export const VoiceClientMessageSchema = z.discriminatedUnion('type', [
  /**
   * Starts a voice call with the assistant (the server adds the person's context). With
   * `conversationId` (the conversation open in the chat, the person's own), the call's transcript
   * is written into it; without, into a new one.
   */
  z.object({ type: z.literal('start'), v: z.literal(VOICE_PROTOCOL_VERSION), conversationId: z.uuid().optional() }).strict(),
  /** Ends the voice call (the server ends it at Vapi, then says `ended`). */
  z.object({ type: z.literal('end') }).strict(),
  /** A typed message, into the voice call (the assistant answers by voice). */
  z.object({ type: z.literal('text'), text: text().trim().min(1).max(VOICE_TEXT_MAX) }).strict(),
  /** Mutes or unmutes the assistant's voice responses (the header's toggle). */
  z.object({ type: z.literal('mute'), muted: z.boolean() }).strict(),
  /** Subscribes this socket to the person's phone calls as they happen (the dashboard's live card). */
  z.object({ type: z.literal('watch-calls') }).strict(),
  /** Ends one of the person's phone calls that is live (through Vapi's live call control). */
  z.object({ type: z.literal('end-phone-call'), callId: z.uuid() }).strict(),
])
export type VoiceClientMessage = z.infer<typeof VoiceClientMessageSchema>

/** Server → browser (text frames). */
export const VoiceServerMessageSchema = z.discriminatedUnion('type', [
  /** The first message on every socket. */
  z.object({ type: z.literal('hello'), v: z.literal(VOICE_PROTOCOL_VERSION) }),
  /** The browser voice call's state: connecting after `start`, listening once Vapi's call is live. */
  z.object({ type: z.literal('status'), status: z.enum(['connecting', 'listening']) }),
  /** A transcript: partials replace each other in place, a final one becomes a message. */
  z.object({ type: z.literal('transcript'), role, final: z.boolean(), text: text() }),
  /** Someone started or stopped speaking. */
  z.object({ type: z.literal('speech'), role, status: z.enum(['started', 'stopped']) }),
  /** The user interrupted the assistant: drop the assistant audio queued for playback at once. */
  z.object({ type: z.literal('interrupted') }),
  /** The voice call ended (after `end`, or on its own); `conversationId` is where it was saved (null: nothing was said). */
  z.object({ type: z.literal('ended'), reason: z.enum(VOICE_END_REASONS), conversationId: z.uuid().nullable() }),
  /** Something went wrong; `code` is one of the contract's error codes. */
  z.object({ type: z.literal('error'), code: text(), message: text() }),
  /** A phone call of the person's changed status (only on a socket that sent `watch-calls`). */
  z.object({ type: z.literal('phone-call'), callId: z.uuid(), status: z.enum(LIVE_CALL_STATUSES), endedReason: text().nullable() }),
  /** A final transcript line of a live phone call (only on a socket that sent `watch-calls`). */
  z.object({ type: z.literal('phone-transcript'), callId: z.uuid(), role, text: text() }),
])
export type VoiceServerMessage = z.infer<typeof VoiceServerMessageSchema>
