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
