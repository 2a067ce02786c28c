import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { VoiceConfigResponseSchema } from '#common/voice'

/** GET /api/voice/config: whether voice is available and the assistant id; never the API key. */
const voiceConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/voice/config',
    {
      schema: {
        operationId: 'getVoiceConfig',
        tags: ['voice'],
        summary: 'Whether voice is configured, and the assistant id (the API key stays on the server)',
        response: { 200: VoiceConfigResponseSchema, 401: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async () => {
      const vapi = app.config.vapi
      if (!vapi) return { available: false, assistantId: null, reason: 'Voice is not configured (VAPI_API_KEY is not set).' }
      if (!vapi.assistantId) return { available: false, assistantId: null, reason: 'Voice is not configured (VAPI_ASSISTANT_ID is not set).' }
      return { available: true, assistantId: vapi.assistantId, reason: null }
    },
  )
}

export default voiceConfigRoutes
