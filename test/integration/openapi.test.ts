import { readFileSync, writeFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

/**
 * The OpenAPI document is part of the external contract: a change to it must be deliberate. When
 * an issue changes the API, update test/fixtures/openapi.json in the same change (it is the
 * document GET /api/openapi.json serves, as JSON). `npm run lint` lints that fixture with Redocly
 * (`lint:api`, redocly.yaml), so what this test holds equal to it is the linted document.
 */
let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase('pglite')
  app = await buildTestApp({ database })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

describe('GET /api/openapi.json', () => {
  it('is the committed document', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(response.statusCode).toBe(200)
    const fixture = new URL('../fixtures/openapi.json', import.meta.url)
    // A deliberate API change: UPDATE_OPENAPI_FIXTURE=1 npx vitest run test/integration/openapi.test.ts
    if (process.env.UPDATE_OPENAPI_FIXTURE === '1') writeFileSync(fixture, `${JSON.stringify(response.json(), null, 2)}\n`)
    const committed = JSON.parse(readFileSync(fixture, 'utf8')) as unknown
    expect(response.json()).toEqual(committed)
  })

  it('lists every /api route the app declares, with its security', async () => {
    const document = response(await app.inject({ method: 'GET', url: '/api/openapi.json' }))
    for (const route of app.routeAccess.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && r.url !== '/api/openapi.json')) {
      const path = route.url.replace(/:(\w+)/g, '{$1}')
      const operation = document.paths[path]?.[route.method.toLowerCase()]
      expect(operation, `${route.method} ${route.url}`).toBeDefined()
      const signedIn = route.auth === 'session' || route.auth === 'paid' || route.auth === 'two-factor' || route.auth === 'staff'
      const expected = signedIn ? [{ session: [] }] : route.auth === 'optional' ? [{}, { session: [] }] : []
      expect({ route: `${route.method} ${route.url}`, security: operation!.security }).toEqual({ route: `${route.method} ${route.url}`, security: expected })
      // A staff operation names the roles it accepts.
      expect({ route: `${route.method} ${route.url}`, roles: operation!['x-staff-roles'] }).toEqual({ route: `${route.method} ${route.url}`, roles: route.roles })
    }
  })
})

type Document = { paths: Record<string, Record<string, { security?: unknown; 'x-staff-roles'?: unknown } | undefined> | undefined> }
const response = (reply: { json(): unknown }) => reply.json() as Document
