/**
 * The voice gateway's protocol as the page reads it (plain code: the unit tests run it in Node):
 * where the socket is, and which text frames from the server are ours. The socket itself is
 * voice-socket.ts.
 */
import { VoiceServerMessageSchema, type VoiceServerMessage } from '#common/voice'

/** The gateway's URL on this page's origin (wss: on https:). */
export function voiceSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/voice`
}

/** Parses one frame from the server: the message, or null when it is not a text frame of ours. */
export function parseServerMessage(data: unknown): VoiceServerMessage | null {
  if (typeof data !== 'string') return null
  try {
    const parsed = VoiceServerMessageSchema.safeParse(JSON.parse(data))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** Whether a text frame is a `hello` of any version. */
export function isHello(data: string): boolean {
  try {
    const json: unknown = JSON.parse(data)
    return typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'hello'
  } catch {
    return false
  }
}
