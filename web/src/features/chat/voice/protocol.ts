/**
 * The voice gateway's protocol as the page reads it (plain code: the unit tests run it in Node):
 * where the socket is, and which text frames from the server are ours.
 */
import { VoiceServerMessageSchema, type VoiceServerMessage } from '#common/voice'

/** The gateway's URL on this page's origin (wss: on https:). */
export function voiceSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/voice`
}

/** Parses one text frame from the server: the message, or null when it is not one of ours. */
export function parseServerMessage(data: string): VoiceServerMessage | null {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    return null
  }
  const parsed = VoiceServerMessageSchema.safeParse(json)
  return parsed.success ? parsed.data : null
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
