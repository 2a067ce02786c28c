import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser } from '../helpers/users'
import { signedInStaff } from '../helpers/staff'
import { STAFF_ROLES, type StaffRole } from '#common/staff'

/**
 * Authentication runs before validation: every operation the OpenAPI document marks as needing a
 * session answers an anonymous caller 401 (a staff operation, `x-staff-roles`: 404, as if it did
 * not exist), whatever parameters and body it sends, so the caller learns nothing of the route's
 * rules. The same request with a session (for a staff operation, staff with its roles and
 * two-factor sign-in) gets past the guard (and is then refused by validation), which proves the
 * parameters really were invalid.
 */
let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Parameter = { in: 'path' | 'query' | 'header' | 'cookie'; name: string }
type Operation = { security?: Array<Record<string, unknown>>; parameters?: Parameter[]; requestBody?: { content?: Record<string, unknown> }; 'x-staff-roles'?: StaffRole[] }
type Document = { paths: Record<string, Record<string, Operation>> }

/** A value no schema of ours accepts: a NUL byte, a lone surrogate and far too long. */
const INVALID = `\u0000\uD800${'x'.repeat(5000)}`
/** A path segment no schema of ours accepts (a NUL byte), short enough for the router. */
const INVALID_SEGMENT = encodeURIComponent('\u0000 not an id')

/** The operation, called with an invalid value for every parameter and a body of the wrong shape. */
function invalidRequest(path: string, method: string, operation: Operation): InjectOptions {
  const query: Record<string, string> = {}
  let url = path
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'query') query[parameter.name] = INVALID
  }
  url = url.replace(/\{(\w+)\}/g, INVALID_SEGMENT)
  const request: InjectOptions = { method: method.toUpperCase() as InjectOptions['method'], url, query }
  if (!['GET', 'HEAD', 'DELETE'].includes(request.method as string)) {
    request.payload = { unexpected: INVALID, title: 42, items: 'not-a-list' }
  }
  return request
}

describe('secured operations, called anonymously with invalid parameters', () => {
  it('answer 401 before any validation, for every operation the document secures', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Document
    const secured: Array<{ name: string; request: InjectOptions; hasInput: boolean; staff: boolean; invalidStatus: number }> = []
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const requiresSession = operation.security?.some((s) => 'session' in s) && !operation.security.some((s) => Object.keys(s).length === 0)
        if (!requiresSession) continue
        const hasInput = (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined
        // An operation that takes a file (a coach's photo), not JSON, refuses the JSON body for its type.
        const invalidStatus = operation.requestBody?.content && !('application/json' in operation.requestBody.content) ? 415 : 400
        secured.push({ name: `${method.toUpperCase()} ${path}`, request: invalidRequest(path, method, operation), hasInput, staff: operation['x-staff-roles'] !== undefined, invalidStatus })
      }
    }
    // The document secures the app's personal routes; an empty walk would prove nothing.
    expect(secured.length).toBeGreaterThan(15)
    expect(secured.map((s) => s.name)).toContain('GET /api/billing/checkout-session/{sessionId}')
    expect(secured.filter((s) => s.staff).map((s) => s.name)).toContain('GET /api/staff/me')

    const member = await signedInUser(app, { paid: 'premium' })
    const staff = await signedInStaff(app, [...STAFF_ROLES])
    for (const { name, request, hasInput, staff: staffOnly, invalidStatus } of secured) {
      const anonymous = await app.inject({ ...request, headers: { origin: app.config.appOrigin } })
      const refusal = staffOnly ? { status: 404, code: 'NOT_FOUND' } : { status: 401, code: 'UNAUTHENTICATED' }
      expect({ name, status: anonymous.statusCode, code: anonymous.json<{ error?: { code?: string } }>().error?.code }).toEqual({ name, ...refusal })
      if (!hasInput) continue
      const signedIn = await app.inject({ ...request, headers: (staffOnly ? staff : member).headers })
      expect({ name, status: signedIn.statusCode }).toEqual({ name, status: invalidStatus })
    }
  })
})
