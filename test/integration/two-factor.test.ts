/**
 * Two-factor sign-in (docs/decisions/072) through the real app on PostgreSQL, its limits counted
 * on the test's clock (no Redis), TOTP time windows stepped with the clock: the set-up from the
 * account page, the sign-in's code step with a code and with a recovery code (each good once),
 * the throttle on wrong codes, what a session waiting for its code can do, the code asked with a
 * change of password or email, turning it off, new recovery codes, and the audit rows of each.
 */
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountActivityResponseSchema } from '#common/audit'
import { SessionUserResponseSchema } from '#common/auth'
import { ErrorBodySchema } from '#common/errors'
import { RecoveryCodesResponseSchema, TwoFactorSetupResponseSchema, TwoFactorStatusResponseSchema } from '#common/two-factor'
import { hashPassword } from '#server/auth/password'
import { hashSecret } from '#server/auth/tokens'
import { auditEvents, emailTokens, sessions, twoFactorCredentials, twoFactorRecoveryCodes, type User } from '#server/db/schema'
import { TWO_FACTOR_FAILURES_PER_HOUR } from '#server/services/accounts'
import { APP_ORIGIN, buildTestApp, sessionCookieFrom } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { keyOfSecret, totpCodeAt } from '../helpers/staff'

const PASSWORD = 'lantern-orchard-velvet-27'
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

let database: TestDatabase
let app: FastifyInstance
const clock = fakeClock(new Date('2026-12-01T12:00:00.000Z'))
let passwordHash: string

let ipCounter = 0
const newIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`

async function call(options: InjectOptions & { cookie?: string }) {
  const { cookie, ...rest } = options
  return app.inject({ ...rest, remoteAddress: '127.0.0.1', headers: { origin: APP_ORIGIN, 'x-forwarded-for': newIp(), ...(cookie ? { cookie } : {}), ...(rest.headers ?? {}) } })
}

const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

async function person(): Promise<User> {
  return insertUser(app.db, { email: `two-factor-${randomBytes(4).toString('hex')}@example.com`, passwordHash, emailConfirmedAt: clock.now() })
}

/** Signs in with the password: the session cookie, and whether the code is asked. */
async function signIn(user: User): Promise<{ cookie: string; twoFactorRequired: boolean }> {
  const response = await call({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: PASSWORD } })
  expect(response.statusCode, response.body).toBe(200)
  const body = response.json<{ twoFactorRequired?: boolean; user?: unknown }>()
  return { cookie: sessionCookieFrom(response), twoFactorRequired: body.twoFactorRequired === true }
}

/** Turns two-factor sign-in on from the account page: the key, the recovery codes and the session that did it. */
async function turnOn(user: User): Promise<{ key: Uint8Array; recoveryCodes: string[]; cookie: string }> {
  const { cookie } = await signIn(user)
  const setup = await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: PASSWORD } })
  expect(setup.statusCode, setup.body).toBe(200)
  const key = keyOfSecret(TwoFactorSetupResponseSchema.parse(setup.json()).secret)
  const enabled = await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: totpCodeAt(key, clock.now()) } })
  expect(enabled.statusCode, enabled.body).toBe(200)
  return { key, recoveryCodes: RecoveryCodesResponseSchema.parse(enabled.json()).recoveryCodes, cookie }
}

const codeStep = (cookie: string, code: string) => call({ method: 'POST', url: '/api/auth/two-factor', cookie, payload: { code } })
const status = async (cookie: string) => TwoFactorStatusResponseSchema.parse((await call({ method: 'GET', url: '/api/account/two-factor', cookie })).json())
const actionsAbout = async (userId: string) =>
  (await app.db.select({ action: auditEvents.action, actorKind: auditEvents.actorKind, actorUserId: auditEvents.actorUserId, details: auditEvents.details }).from(auditEvents).where(eq(auditEvents.subjectUserId, userId)).orderBy(auditEvents.id))

describe('turning two-factor sign-in on (the account page)', () => {
  it('asks the current password, shows a key as a QR code and as text, and is on only once a code from the app confirms it', async () => {
    const user = await person()
    const { cookie } = await signIn(user)
    const other = await signIn(user)
    expect(await status(cookie)).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0 })

    const wrongPassword = await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: 'not-my-password-1' } })
    expect(wrongPassword.statusCode).toBe(400)
    expect(errorOf(wrongPassword)).toMatchObject({ code: 'WRONG_PASSWORD', field: 'currentPassword' })

    const setup = await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: PASSWORD } })
    expect(setup.statusCode, setup.body).toBe(200)
    expect(setup.headers['cache-control']).toBe('no-store')
    const { secret, keyUri, qrCodeSvg } = TwoFactorSetupResponseSchema.parse(setup.json())
    expect(secret).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/)
    expect(keyUri).toBe(`otpauth://totp/Momentum%20Coach:${encodeURIComponent(user.email)}?issuer=Momentum+Coach&algorithm=SHA1&secret=${secret.replace(/ /g, '')}&period=30&digits=6`)
    expect(qrCodeSvg).toMatch(/^<svg [^>]*viewBox=/)
    const key = keyOfSecret(secret)
    // Not on yet: signing in asks no code.
    expect(await status(cookie)).toMatchObject({ enabled: false })
    expect((await signIn(user)).twoFactorRequired).toBe(false)

    const wrong = await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: totpCodeAt(key, clock.now(), 5) } })
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong)).toMatchObject({ code: 'INVALID_TWO_FACTOR_CODE', field: 'code' })
    const notDigits = await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: 'abcdef' } })
    expect(notDigits.statusCode).toBe(400)
    expect(errorOf(notDigits)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'code', message: 'code: The code is 6 digits' })

    // The code as people type it, with a space.
    const code = totpCodeAt(key, clock.now())
    const enabled = await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: `${code.slice(0, 3)} ${code.slice(3)}` } })
    expect(enabled.statusCode, enabled.body).toBe(200)
    const { recoveryCodes, signedOut } = RecoveryCodesResponseSchema.parse(enabled.json())
    expect(recoveryCodes).toHaveLength(10)
    for (const recovery of recoveryCodes) expect(recovery).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/)
    expect(new Set(recoveryCodes).size).toBe(10)
    // Every other session began without the code: signed out. This one stays, verified.
    expect(signedOut).toBe(2)
    expect((await call({ method: 'GET', url: '/api/me', cookie: other.cookie })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
    expect(await status(cookie)).toEqual({ enabled: true, enabledAt: clock.now().toISOString(), recoveryCodesLeft: 10 })
    // Only hashes are kept.
    const stored = JSON.stringify(await app.db.select().from(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.id)))
    for (const recovery of recoveryCodes) expect(stored).not.toContain(recovery.replace('-', ''))

    // Once on, a second set-up is refused until it is turned off.
    const again = await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: PASSWORD } })
    expect(again.statusCode).toBe(409)
    expect(await actionsAbout(user.id)).toEqual([{ action: 'two_factor_enabled', actorKind: 'user', actorUserId: user.id, details: {} }])
  })

  it('a second set-up replaces a key not confirmed yet: the first key’s codes no longer turn it on', async () => {
    const user = await person()
    const { cookie } = await signIn(user)
    const first = keyOfSecret(TwoFactorSetupResponseSchema.parse((await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: PASSWORD } })).json()).secret)
    const second = keyOfSecret(TwoFactorSetupResponseSchema.parse((await call({ method: 'POST', url: '/api/account/two-factor/setup', cookie, payload: { currentPassword: PASSWORD } })).json()).secret)
    expect((await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: totpCodeAt(first, clock.now()) } })).statusCode).toBe(400)
    expect((await call({ method: 'POST', url: '/api/account/two-factor', cookie, payload: { code: totpCodeAt(second, clock.now()) } })).statusCode).toBe(200)
  })
})

describe('signing in with two-factor sign-in on', () => {
  it('asks the code after the password; the code of the app’s current step (or the one before or after) signs in, each code once', async () => {
    const user = await person()
    const { key } = await turnOn(user)
    const { cookie, twoFactorRequired } = await signIn(user)
    expect(twoFactorRequired).toBe(true)

    // The code that turned it on is used up (same 30-second step).
    const replayed = await codeStep(cookie, totpCodeAt(key, clock.now()))
    expect(replayed.statusCode).toBe(400)
    expect(errorOf(replayed)).toMatchObject({ code: 'INVALID_TWO_FACTOR_CODE', field: 'code' })
    // Two steps ahead of the clock: too far.
    expect((await codeStep(cookie, totpCodeAt(key, clock.now(), 2))).statusCode).toBe(400)

    clock.advance(30 * SECOND)
    const signedIn = await codeStep(cookie, totpCodeAt(key, clock.now()))
    expect(signedIn.statusCode, signedIn.body).toBe(200)
    expect(SessionUserResponseSchema.parse(signedIn.json()).user.email).toBe(user.email)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
    // A session that passed its code needs none again.
    expect((await codeStep(cookie, totpCodeAt(key, clock.now(), 1))).statusCode).toBe(409)

    // Another sign-in in the same step cannot reuse that code, but the next step's code (a phone a little ahead) works.
    const next = await signIn(user)
    expect((await codeStep(next.cookie, totpCodeAt(key, clock.now()))).statusCode).toBe(400)
    expect((await codeStep(next.cookie, totpCodeAt(key, clock.now(), 1))).statusCode).toBe(200)
    // A minute on, the step before is allowed by the window, but it is the step last used: the current one works.
    clock.advance(60 * SECOND)
    const late = await signIn(user)
    expect((await codeStep(late.cookie, totpCodeAt(key, clock.now(), -1))).statusCode).toBe(400)
    expect((await codeStep(late.cookie, totpCodeAt(key, clock.now()))).statusCode).toBe(200)
  })

  it('takes a recovery code instead, once: it is used up, and the audit log says so', async () => {
    const user = await person()
    const { recoveryCodes, cookie: owner } = await turnOn(user)
    const { cookie } = await signIn(user)
    // As typed: upper case, no dash.
    const used = await codeStep(cookie, recoveryCodes[3]!.replace('-', '').toUpperCase())
    expect(used.statusCode, used.body).toBe(200)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)

    const again = await signIn(user)
    const reused = await codeStep(again.cookie, recoveryCodes[3]!)
    expect(reused.statusCode).toBe(400)
    expect(errorOf(reused).code).toBe('INVALID_TWO_FACTOR_CODE')
    expect((await codeStep(again.cookie, recoveryCodes[4]!)).statusCode).toBe(200)

    expect(await status(owner)).toMatchObject({ recoveryCodesLeft: 8 })
    const recovery = (await actionsAbout(user.id)).filter((event) => event.action === 'recovery_code_used')
    expect(recovery).toEqual([
      { action: 'recovery_code_used', actorKind: 'user', actorUserId: user.id, details: { purpose: 'sign_in', remaining: 9 } },
      { action: 'recovery_code_used', actorKind: 'user', actorUserId: user.id, details: { purpose: 'sign_in', remaining: 8 } },
    ])
    // Someone else's recovery code is no code of this person's.
    const stranger = await person()
    const strangerCodes = (await turnOn(stranger)).recoveryCodes
    const third = await signIn(user)
    expect((await codeStep(third.cookie, strangerCodes[0]!)).statusCode).toBe(400)
  })

  it('a session waiting for its code can do nothing else (401 TWO_FACTOR_PENDING), can sign out, and lapses after 15 minutes', async () => {
    const user = await person()
    const { key } = await turnOn(user)
    const { cookie } = await signIn(user)
    for (const [method, url] of [
      ['GET', '/api/me'],
      ['GET', '/api/account'],
      ['GET', '/api/account/two-factor'],
      ['POST', '/api/auth/destination'],
      ['GET', '/api/goals'],
    ] as const) {
      const response = await call({ method, url, cookie })
      expect({ url, status: response.statusCode, code: errorOf(response).code }).toEqual({ url, status: 401, code: 'TWO_FACTOR_PENDING' })
    }
    // Waiting past 15 minutes: the password again.
    clock.advance(15 * MINUTE)
    const lapsed = await codeStep(cookie, totpCodeAt(key, clock.now()))
    expect(lapsed.statusCode).toBe(401)
    expect(errorOf(lapsed).code).toBe('UNAUTHENTICATED')

    // Signing out ends a waiting session.
    const waiting = await signIn(user)
    const out = await call({ method: 'POST', url: '/api/auth/logout', cookie: waiting.cookie })
    expect(out.statusCode).toBe(204)
    const id = waiting.cookie.split('=')[1]!.split('.')[0]!
    expect(await app.db.select().from(sessions).where(eq(sessions.id, id))).toEqual([])
    expect((await codeStep(waiting.cookie, totpCodeAt(key, clock.now(), 1))).statusCode).toBe(401)
  })

  it('a password reset by email still asks the code', async () => {
    const user = await person()
    const { key } = await turnOn(user)
    clock.advance(30 * SECOND)
    const token = randomBytes(32).toString('hex')
    await app.db.insert(emailTokens).values({ userId: user.id, purpose: 'reset_password', tokenHash: hashSecret(token), expiresAt: new Date(clock.now().getTime() + HOUR) })
    const reset = await call({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password: 'harbor-violet-cinder-58', confirmPassword: 'harbor-violet-cinder-58' } })
    expect(reset.statusCode, reset.body).toBe(200)
    expect(reset.json()).toEqual({ twoFactorRequired: true })
    const cookie = sessionCookieFrom(reset)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(401)
    expect((await codeStep(cookie, totpCodeAt(key, clock.now()))).statusCode).toBe(200)
  })
})

describe('wrong codes', () => {
  it('are limited per person: a few free, then a wait that grows, and at most 20 an hour, whatever the address or session', async () => {
    const user = await person()
    const { key } = await turnOn(user)
    clock.advance(30 * SECOND)
    const wrong = () => totpCodeAt(key, clock.now(), 7)
    // Each try from its own address and session (the per-address limits never engage).
    const attempt = async (code: string) => codeStep((await signIn(user)).cookie, code)
    for (let n = 1; n <= 5; n++) expect((await attempt(wrong())).statusCode, `wrong code ${n}`).toBe(400)
    // The sixth, even the right code, must wait for the fifth's lock.
    const waiting = await attempt(totpCodeAt(key, clock.now()))
    expect(waiting.statusCode).toBe(429)
    expect(errorOf(waiting).message).toBe('Too many wrong codes. Please wait a moment and try again.')
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(0)

    // Waiting out each lock (1 s after the fifth failure, twice as long after each next one, at
    // most 5 minutes: 39 minutes in all), the wrong codes go on to the hourly cap.
    const lockAfter = (failures: number) => Math.min(2 ** Math.max(0, failures - 5), 300) * SECOND
    let failures = 5
    while (failures < TWO_FACTOR_FAILURES_PER_HOUR) {
      clock.advance(lockAfter(failures))
      const response = await attempt(wrong())
      expect(response.statusCode, `wrong code ${failures + 1}`).toBe(400)
      failures += 1
    }
    clock.advance(lockAfter(failures))
    const capped = await attempt(totpCodeAt(key, clock.now()))
    expect(capped.statusCode).toBe(429)
    expect(errorOf(capped).message).toBe('Too many wrong codes. Please try again in an hour, or use a recovery code later.')
    // An hour after the first failures, the right code works, and the count starts again.
    clock.advance(HOUR)
    expect((await attempt(totpCodeAt(key, clock.now()))).statusCode).toBe(200)
    expect((await attempt(wrong())).statusCode).toBe(400)
  })
})

describe('changing the password or the email with two-factor sign-in on', () => {
  it('asks the code too (400 naming twoFactorCode without it or with a wrong one)', async () => {
    const user = await person()
    const { key, cookie } = await turnOn(user)
    clock.advance(30 * SECOND)
    const password = (extra: Record<string, unknown>) =>
      call({ method: 'POST', url: '/api/account/password', cookie, payload: { currentPassword: PASSWORD, newPassword: 'copper-meadow-lantern-64', confirmPassword: 'copper-meadow-lantern-64', ...extra } })
    const missing = await password({})
    expect(missing.statusCode).toBe(400)
    expect(errorOf(missing)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'twoFactorCode' })
    const wrong = await password({ twoFactorCode: totpCodeAt(key, clock.now(), 9) })
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong)).toMatchObject({ code: 'INVALID_TWO_FACTOR_CODE', field: 'twoFactorCode' })

    const email = (extra: Record<string, unknown>) => call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: `new-${randomBytes(3).toString('hex')}@example.com`, currentPassword: PASSWORD, ...extra } })
    const noCode = await email({})
    expect(noCode.statusCode).toBe(400)
    expect(errorOf(noCode)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'twoFactorCode' })
    expect((await email({ twoFactorCode: totpCodeAt(key, clock.now()) })).statusCode).toBe(202)

    clock.advance(30 * SECOND)
    const changed = await password({ twoFactorCode: totpCodeAt(key, clock.now()) })
    expect(changed.statusCode, changed.body).toBe(200)
  })

  it('asks nothing more with it off', async () => {
    const user = await person()
    const { cookie } = await signIn(user)
    const changed = await call({ method: 'POST', url: '/api/account/password', cookie, payload: { currentPassword: PASSWORD, newPassword: 'copper-meadow-lantern-64', confirmPassword: 'copper-meadow-lantern-64' } })
    expect(changed.statusCode, changed.body).toBe(200)
  })
})

describe('turning it off, and new recovery codes', () => {
  it('new recovery codes replace the old ones (a code first)', async () => {
    const user = await person()
    const { key, recoveryCodes, cookie } = await turnOn(user)
    clock.advance(30 * SECOND)
    const fresh = await call({ method: 'POST', url: '/api/account/two-factor/recovery-codes', cookie, payload: { code: totpCodeAt(key, clock.now()) } })
    expect(fresh.statusCode, fresh.body).toBe(200)
    const newCodes = RecoveryCodesResponseSchema.parse(fresh.json()).recoveryCodes
    expect(newCodes.filter((code) => recoveryCodes.includes(code))).toEqual([])
    const { cookie: waiting } = await signIn(user)
    expect((await codeStep(waiting, recoveryCodes[0]!)).statusCode).toBe(400)
    expect((await codeStep(waiting, newCodes[0]!)).statusCode).toBe(200)
    expect((await actionsAbout(user.id)).map((event) => event.action)).toEqual(['two_factor_enabled', 'recovery_codes_regenerated', 'recovery_code_used'])
  })

  it('turning it off takes the password and a code; sessions waiting for a code are signed out', async () => {
    const user = await person()
    const { key, cookie } = await turnOn(user)
    const waiting = await signIn(user)
    clock.advance(30 * SECOND)
    const noPassword = await call({ method: 'POST', url: '/api/account/two-factor/disable', cookie, payload: { currentPassword: 'wrong-password-42', code: totpCodeAt(key, clock.now()) } })
    expect(noPassword.statusCode).toBe(400)
    expect(errorOf(noPassword).code).toBe('WRONG_PASSWORD')
    const off = await call({ method: 'POST', url: '/api/account/two-factor/disable', cookie, payload: { currentPassword: PASSWORD, code: totpCodeAt(key, clock.now()) } })
    expect(off.statusCode, off.body).toBe(200)
    expect(TwoFactorStatusResponseSchema.parse(off.json())).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0 })
    // The session that had given only the password is gone, not signed in.
    expect((await call({ method: 'GET', url: '/api/me', cookie: waiting.cookie })).statusCode).toBe(401)
    expect(await app.db.select().from(twoFactorCredentials).where(eq(twoFactorCredentials.userId, user.id))).toEqual([])
    expect((await signIn(user)).twoFactorRequired).toBe(false)
    expect((await actionsAbout(user.id)).map((event) => event.action)).toEqual(['two_factor_enabled', 'two_factor_disabled'])
  })
})

describe('the account activity list', () => {
  it('lists the events about the signed-in person only, newest first, in words', async () => {
    const user = await person()
    const { cookie } = await turnOn(user)
    const other = await person()
    await turnOn(other)
    const response = await call({ method: 'GET', url: '/api/account/activity', cookie })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    const { events } = AccountActivityResponseSchema.parse(response.json())
    expect(events.map((event) => event.description)).toEqual(['You turned on two-factor sign-in.'])
    expect(await app.db.select().from(auditEvents).where(eq(auditEvents.subjectUserId, other.id))).toHaveLength(1)
  })
})
