/**
 * The dashboard's socket to the voice gateway as plain code (the unit tests run it in Node): where
 * it is, which text frames are ours, and how long to wait before opening it again.
 */
import { VoiceServerMessageSchema, type VoiceServerMessage } from '#common/voice'

/** Delays before opening the socket again after it dropped: 1 s, 2 s, 4 s… at most a minute. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt))
}

/** The gateway's URL on this page's origin (wss: on https:). */
export function liveSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/voice`
}

/** One text frame from the server: a message of our protocol, or null. */
export function parseServerFrame(data: unknown): VoiceServerMessage | null {
  if (typeof data !== 'string') return null
  try {
    const parsed = VoiceServerMessageSchema.safeParse(JSON.parse(data))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}
