/**
 * The staff guard (docs/decisions/072), walked over every route that declares `auth: 'staff'`
 * (read from app.routeAccess, so a new staff route is walked too): to anyone who is not staff
 * (signed out, a member, a session still waiting for its two-factor code) it is a 404, the same as
 * a route that does not exist; staff without two-factor sign-in get 403 TWO_FACTOR_REQUIRED; staff
 * with two-factor sign-in but none of the route's roles 403 FORBIDDEN; the route's roles pass.
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorBodySchema } from '#common/errors'
import { STAFF_ROLES, StaffMeResponseSchema, type StaffRole } from '#common/staff'
import { createSession } from '#server/auth/session'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, turnOnTwoFactor } from '../helpers/staff'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
const clock = fakeClock(new Date('2026-12-01T12:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type StaffRoute = { method: string; url: string; roles: readonly StaffRole[] }

/** Every staff route the app declares (HEAD rides with its GET). */
const staffRoutes = (): StaffRoute[] =>
  app.routeAccess.filter((route) => route.auth === 'staff' && route.method !== 'HEAD').map((route) => ({ method: route.method, url: route.url, roles: route.roles! }))

/** The route called with a path parameter of the right shape for no row, and an empty body: the guard answers before either is read. */
function requestTo(route: StaffRoute, headers: Record<string, string>): InjectOptions {
  const url = route.url.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000')
  const request: InjectOptions = { method: route.method as InjectOptions['method'], url, headers: { origin: app.config.appOrigin, ...headers } }
  if (!['GET', 'DELETE'].includes(route.method)) request.payload = {}
  return request
}

const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error

/** A request past the guard: an event stream (it stays open) is closed once its answer began. */
async function throughGuard(route: StaffRoute, headers: Record<string, string>): Promise<{ statusCode: number; body: string; json(): unknown }> {
  if (!route.url.endsWith('/stream')) return app.inject(requestTo(route, headers))
  const controller = new AbortController()
  const response = await app.inject({ ...requestTo(route, headers), payloadAsStream: true, signal: controller.signal })
  if (response.statusCode < 300) {
    controller.abort()
    return { statusCode: response.statusCode, body: '', json: () => ({}) }
  }
  let body = ''
  for await (const chunk of response.stream()) body += String(chunk)
  return { statusCode: response.statusCode, body, json: () => JSON.parse(body) as unknown }
}

describe('every staff route', () => {
  it('declares its roles, and there is at least one (GET /api/staff/me)', () => {
    const routes = staffRoutes()
    expect(routes.map((route) => `${route.method} ${route.url}`)).toContain('GET /api/staff/me')
    for (const route of routes) expect(route.roles.length, `${route.method} ${route.url}`).toBeGreaterThan(0)
  })

  it('is a 404 to anyone who is not staff, worded as for a route that does not exist', async () => {
    const member = await signedInUser(app, { paid: 'elite' })
    // A member with two-factor sign-in on whose session still waits for its code.
    const waiting = await signedInUser(app)
    await turnOnTwoFactor(app.db, waiting.user.id, clock.now())
    // Staff whose session still waits for its code: not signed in as staff yet.
    const staffWaiting = await signedInStaff(app, ['admin'])
    const pending = `session=${(await createSession(app.db, clock, staffWaiting.user.id)).token}`
    for (const route of staffRoutes()) {
      const unknown = await app.inject(requestTo({ ...route, url: `${route.url}-no-such-route` }, {}))
      const callers: Record<string, Record<string, string>> = { anonymous: {}, member: { cookie: member.cookie }, waitingMember: { cookie: waiting.cookie }, waitingStaff: { cookie: pending } }
      for (const [who, headers] of Object.entries(callers)) {
        const response = await app.inject(requestTo(route, headers))
        const name = `${route.method} ${route.url} as ${who}`
        expect({ name, status: response.statusCode, error: errorOf(response) }).toEqual({
          name,
          status: 404,
          error: { code: 'NOT_FOUND', message: `No such API route: ${route.method} ${requestTo(route, {}).url}` },
        })
        // The same shape as a path no route serves.
        expect(Object.keys(errorOf(unknown)).sort()).toEqual(Object.keys(errorOf(response)).sort())
      }
    }
  })

  it('asks staff without two-factor sign-in to set it up (403 TWO_FACTOR_REQUIRED), whatever their roles', async () => {
    const noTwoFactor = await signedInStaff(app, [...STAFF_ROLES], { twoFactor: false })
    for (const route of staffRoutes()) {
      const response = await app.inject(requestTo(route, { cookie: noTwoFactor.cookie }))
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode, code: errorOf(response).code }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 403,
        code: 'TWO_FACTOR_REQUIRED',
      })
    }
  })

  it('refuses staff with none of the route’s roles (403 FORBIDDEN) and lets each of its roles through', async () => {
    for (const route of staffRoutes()) {
      const others = STAFF_ROLES.filter((role) => !route.roles.includes(role))
      if (others.length > 0) {
        const wrong = await signedInStaff(app, others)
        const response = await app.inject(requestTo(route, { cookie: wrong.cookie }))
        expect({ route: `${route.method} ${route.url}`, status: response.statusCode, code: errorOf(response).code }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 403,
          code: 'FORBIDDEN',
        })
      }
      for (const role of route.roles) {
        const right = await signedInStaff(app, [role])
        const response = await throughGuard(route, { cookie: right.cookie })
        // Past the guard: the route's own answer (its data, its validation's 400 for the empty body,
        // or its own 404 for the made-up id), never the guard's 401, 403 or 404 of no such route.
        const guarded = [401, 403].includes(response.statusCode) || (response.statusCode === 404 && errorOf(response).message.startsWith('No such API route'))
        expect(guarded, `${route.method} ${route.url} as ${role}: ${response.body}`).toBe(false)
      }
    }
  })
})

describe('GET /api/staff/me', () => {
  it('names the staff member, their roles and their two-factor sign-in', async () => {
    const dana = await signedInStaff(app, ['operator', 'coach'], { fullName: 'Dana Lee' })
    const response = await app.inject({ method: 'GET', url: '/api/staff/me', headers: dana.headers })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(StaffMeResponseSchema.parse(response.json())).toEqual({
      fullName: 'Dana Lee',
      email: dana.user.email,
      roles: ['coach', 'operator'],
      twoFactor: { enabledAt: clock.now().toISOString(), recoveryCodesLeft: 0 },
    })
  })
})

describe('declaring a staff route', () => {
  it('without its roles (or roles without staff) stops the app from starting', async () => {
    await expect(
      buildTestApp({ database, extend: (app) => void app.get('/api/staff/nothing', { config: { auth: 'staff' } }, async () => ({})) }),
    ).rejects.toThrow('GET /api/staff/nothing is a staff route: it must declare config.role')
    await expect(
      buildTestApp({ database, extend: (app) => void app.get('/api/staff/members', { config: { auth: 'session', role: 'coach' } }, async () => ({})) }),
    ).rejects.toThrow("declares config.role without auth: 'staff'")
  })
})

describe('a route for one role', () => {
  it('refuses the other roles (403 FORBIDDEN) and lets its role through', async () => {
    // The app's own staff routes may all accept every role: one for operators only, registered here.
    const extended = await buildTestApp({
      database,
      clock,
      extend: (app) => void app.get('/api/staff/operators-only', { config: { auth: 'staff', role: 'operator' } }, async () => ({ ok: true })),
    })
    try {
      const coach = await signedInStaff(extended, ['coach', 'support', 'admin'])
      const operator = await signedInStaff(extended, ['operator'])
      const refused = await extended.inject({ method: 'GET', url: '/api/staff/operators-only', headers: coach.headers })
      expect(refused.statusCode).toBe(403)
      expect(errorOf(refused)).toEqual({ code: 'FORBIDDEN', message: 'This page is for other staff roles.' })
      const allowed = await extended.inject({ method: 'GET', url: '/api/staff/operators-only', headers: operator.headers })
      expect(allowed.statusCode).toBe(200)
      expect(extended.routeAccess.find((route) => route.url === '/api/staff/operators-only')).toMatchObject({ auth: 'staff', roles: ['operator'] })
    } finally {
      await extended.close()
    }
  })
})

describe('after sign-in', () => {
  it('sends a staff account without a plan of its own to /staff, and a member to the usual place', async () => {
    const staff = await signedInStaff(app, ['support'])
    const member = await signedInUser(app)
    const destination = async (cookie: string) => (await app.inject({ method: 'POST', url: '/api/auth/destination', headers: { cookie, origin: app.config.appOrigin } })).json<{ path: string }>().path
    expect(await destination(staff.cookie)).toBe('/staff')
    expect(await destination(member.cookie)).toBe('/goal-intake')
  })
})
