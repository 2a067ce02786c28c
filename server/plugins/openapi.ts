import swagger from '@fastify/swagger'
import fp from 'fastify-plugin'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import type { RouteAuth } from './auth'

/**
 * The OpenAPI 3 document, generated from the zod schemas of every /api route and served at
 * GET /api/openapi.json. Each operation says whether it needs a session (`security`).
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Momentum Coach API',
          description: 'The JSON API behind the Momentum Coach web app. Errors are {"error":{"code","message","field?"}}.',
          version: '1.0.0',
        },
        components: {
          securitySchemes: {
            session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The session cookie set at login.' },
          },
        },
      },
      transform: (input) => {
        const transformed = jsonSchemaTransform(input)
        const auth = (input.route.config as { auth?: RouteAuth } | undefined)?.auth ?? 'none'
        const schema = (transformed.schema ?? {}) as Record<string, unknown>
        if (auth === 'session' || auth === 'paid') schema.security = [{ session: [] }]
        if (auth === 'optional') schema.security = [{}, { session: [] }]
        if (auth === 'none' || auth === 'webhook' || auth === 'token') schema.security = []
        return { ...transformed, schema }
      },
      transformObject: jsonSchemaTransformObject,
      hideUntagged: false,
    })

    app.get('/api/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger())
  },
  { name: 'openapi' },
)
