import swagger from '@fastify/swagger'
import fp from 'fastify-plugin'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import type { RouteAuth, RouteRole } from './auth'

/** Every operation carries one of these tags (redocly.yaml makes an undeclared tag an error). */
const TAGS = [
  { name: 'operations', description: 'The state of the server and what it depends on.' },
  { name: 'auth', description: 'Sign-up, sign-in (with its two-factor code step) and sign-out, email confirmation and password reset.' },
  { name: 'account', description: "The signed-in person's profile, email, phone, password, two-factor sign-in, sessions, account activity and plan usage; exporting their data and deleting the account." },
  { name: 'billing', description: 'The plans, the subscription, Stripe Checkout and the customer portal, and payment testing mode.' },
  { name: 'opt-in', description: 'The text (SMS) opt-in page: its instructions, recording the opt-in, and the events while it is open.' },
  { name: 'consent', description: 'Where calls, texts and report emails stand for the person, and the consent ledger.' },
  { name: 'goals', description: 'The goal intake: the life areas, work and career, specific goals and the call time.' },
  { name: 'dashboard', description: 'The dashboard: recent calls, days active and open commitments.' },
  { name: 'calls', description: 'Coaching calls: the schedule, the next call, one call with its timeline, "Call me now" and the diagnostics.' },
  { name: 'voice', description: "Voice in the app: whether it is configured, and the realtime WebSocket gateway to the coach." },
  { name: 'conversations', description: 'Text chat with the coach: conversations and their messages.' },
  { name: 'memory', description: 'What the coach remembers of the person (docs/decisions/083): its facts and episodes, correcting or deleting them, and pausing it.' },
  { name: 'courses', description: 'Courses, their lessons and quizzes, enrollment and progress.' },
  { name: 'reports', description: 'Weekly progress reports, progress over the weeks, and unsubscribing from report emails.' },
  { name: 'support', description: "The Help page: a person's support requests and the conversation with support (docs/decisions/077)." },
  {
    name: 'support inbox',
    description: "Support staff's inbox: requests by plan priority and age, replies (emailed to the member), internal notes, statuses, canned replies. Staff only (x-staff-roles); each read and change is in the member's audit log.",
  },
  { name: 'coach', description: "An Elite member's human coach (docs/decisions/078)." },
  {
    name: 'coach workspace',
    description: "Coaches' workspace (their own members only: goals, calls, commitments, reports, private notes; each read audited) and admins' view of coaches' capacity and assignments. Staff only (x-staff-roles).",
  },
  {
    name: 'goal templates',
    description:
      "Goal templates (docs/decisions/081): Elite members start the goal intake from one or answer their coach's offer; coaches and admins write them (each edit a new version) and archive them (x-staff-roles).",
  },
  {
    name: 'staff',
    description:
      "Staff accounts' operations. Each names the staff roles it accepts (x-staff-roles) and needs two-factor sign-in: to anyone who is not staff it answers 404, as for a route that does not exist.",
  },
  { name: 'webhooks', description: 'Calls from Stripe, Vapi and Twilio, each authenticated by its signature or secret rather than a session.' },
]

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
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        },
        // Relative: the API is served by the same origin as this document (APP_URL).
        servers: [{ url: '/', description: 'The Momentum Coach server that serves this document' }],
        tags: TAGS,
        components: {
          securitySchemes: {
            session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The session cookie set at login.' },
          },
        },
      },
      transform: (input) => {
        const transformed = jsonSchemaTransform(input)
        const config = input.route.config as { auth?: RouteAuth; role?: RouteRole } | undefined
        const auth = config?.auth ?? 'none'
        const schema = (transformed.schema ?? {}) as Record<string, unknown>
        if (auth === 'session' || auth === 'paid' || auth === 'two-factor' || auth === 'staff') schema.security = [{ session: [] }]
        // The roles a staff operation accepts (any one of them).
        if (auth === 'staff' && config?.role) schema['x-staff-roles'] = [config.role].flat()
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
