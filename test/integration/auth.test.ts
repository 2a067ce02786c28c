import { randomBytes } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { eq } from 'drizzle-orm'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_TEXT_VERSION, SessionUserResponseSchema } from '#common/auth'
import { ErrorBodySchema } from '#common/errors'
import { LOGIN_FREE_FAILURES } from '#server/services/accounts'
import { hashSecret } from '#server/auth/tokens'
import { emailTokens, goals, profiles, sessions, subscribers, users } from '#server/db/schema'
import { composeEmail, createMailer } from '#server/integrations/mailer'
import type { RunningWorkers } from '#server/jobs/bullmq'
import { startWorker } from '../../worker/worker'
import { buildApp } from '#server/app'
import { APP_ORIGIN, buildTestApp, sessionCookieFrom, testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { createTestRedis, type TestRedis } from '../helpers/redis'
import { startSmtpSink } from '../helpers/smtp-sink'

const HOUR = 3_600_000
const DAY = 24 * HOUR

let database: TestDatabase
let redis: TestRedis
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let app: FastifyInstance
const clock = fakeClock()
const bodies: string[] = []

/** Each test speaks from its own address, so the per-IP limits of one test never touch another. */
let ipCounter = 0
const newIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`

async function call(options: InjectOptions & { ip?: string; cookie?: string }) {
  const { ip, cookie, ...rest } = options
  const response = await app.inject({
    ...rest,
    remoteAddress: '127.0.0.1',
    headers: {
      origin: APP_ORIGIN,
      'x-forwarded-for': ip ?? newIp(),
      ...(cookie ? { cookie } : {}),
      ...(rest.headers ?? {}),
    },
  })
  bodies.push(response.body)
  return response
}

const uniqueEmail = () => `person-${randomBytes(4).toString('hex')}@example.com`

function signupBody(overrides: Record<string, unknown> = {}) {
  return {
    fullName: 'Ada Lovelace',
    email: uniqueEmail(),
    phoneNumber: '(202) 523-4567',
    password: 'velvet-harbor-lantern',
    confirmPassword: 'velvet-harbor-lantern',
    communicationConsent: true,
    termsAccepted: true,
    ...overrides,
  }
}

async function signUp(overrides: Record<string, unknown> = {}) {
  const body = signupBody(overrides)
  const response = await call({ method: 'POST', url: '/api/auth/signup', payload: body })
  expect(response.statusCode, response.body).toBe(201)
  return { body, response, cookie: sessionCookieFrom(response), user: SessionUserResponseSchema.parse(response.json()).user }
}

/** With Redis the app enqueues its emails on BullMQ, and a worker (as `npm run worker`) sends them. */
let workerConnection: Redis
let worker: RunningWorkers
const bullmqPrefix = () => `${redis.prefix}bull`

beforeAll(async () => {
  database = await createTestDatabase()
  redis = await createTestRedis()
  smtp = await startSmtpSink()
  app = await buildTestApp({
    database,
    redis: redis.redis,
    redisPrefix: redis.prefix,
    bullmqPrefix: bullmqPrefix(),
    clock,
    env: { SMTP_URL: smtp.url },
  })
  workerConnection = new Redis(redis.url, { maxRetriesPerRequest: null })
  worker = await startWorker({ services: app.services, connection: workerConnection, log: pino({ level: 'silent' }), prefix: bullmqPrefix() })
})

afterAll(async () => {
  await worker?.close()
  await workerConnection?.quit()
  await app?.close()
  await smtp?.close()
  await redis?.destroy()
  await database?.destroy()
  // No response ever carries a password or a hash.
  for (const body of bodies) {
    expect(body).not.toMatch(/passwordHash|password_hash|\$argon2|secretHash|velvet-harbor-lantern/)
  }
})

describe('sign-up', () => {
  it('creates the account, signs in, and records what the spec asks', async () => {
    const email = `  New.Person+${randomBytes(3).toString('hex')}@Example.COM `
    const { user, response } = await signUp({ email, partnerProgram: ' NORTHWIND ' })
    expect(user.email).toBe(email.trim().toLowerCase())
    expect(user.phoneNumber).toBe('2025234567')
    expect(user.emailConfirmed).toBe(false)
    expect(user.partnerProgram).toBe('NORTHWIND')
    expect(user.hasSubscription).toBe(false)
    const cookie = response.cookies.find((c) => c.name === 'session')!
    expect(cookie.httpOnly).toBe(true)
    expect(cookie.sameSite).toBe('Lax')
    expect(cookie.path).toBe('/')
    const [row] = await database.db.select().from(users).where(eq(users.id, user.id))
    expect(row!.communicationConsentVersion).toBe(CONSENT_TEXT_VERSION)
    expect(row!.communicationConsentAt).toBeInstanceOf(Date)
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
  })

  it('defaults the partner program to GENERAL', async () => {
    const { user } = await signUp()
    expect(user.partnerProgram).toBe('GENERAL')
    const [profile] = await database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(profile!.partnerProgram).toBe('GENERAL')
  })

  it.each([
    [{ fullName: '   ' }, 'fullName', 'Full name is required'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'not-an-email' }, 'email', 'Please enter a valid email'],
    [{ phoneNumber: '555-1234' }, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
    [{ password: 'short', confirmPassword: 'short' }, 'password', 'Password must be at least 8 characters'],
    [{ password: 'x'.repeat(257), confirmPassword: 'x'.repeat(257) }, 'password', 'Password must be at most 256 characters'],
    [{ confirmPassword: '' }, 'confirmPassword', 'Please confirm your password'],
    [{ confirmPassword: 'velvet-harbor-lanterns' }, 'confirmPassword', 'Passwords do not match'],
    [{ communicationConsent: false }, 'communicationConsent', 'You must agree to receive messages'],
    [{ termsAccepted: false }, 'termsAccepted', 'You must agree to the terms of service'],
    [{ partnerProgram: 'bad program!' }, 'partnerProgram', 'Partner program may contain only letters, digits, _ and -'],
    [{ partnerProgram: 'P'.repeat(65) }, 'partnerProgram', 'Partner program must be at most 64 characters'],
  ])('refuses %o with 400 naming %s', async (overrides, field, message) => {
    const response = await call({ method: 'POST', url: '/api/auth/signup', payload: signupBody(overrides) })
    expect(response.statusCode).toBe(400)
    const { error } = ErrorBodySchema.parse(response.json())
    expect(error.field).toBe(field)
    expect(error.message).toContain(message)
  })

  it('refuses one of the most common passwords, saying so', async () => {
    const response = await call({ method: 'POST', url: '/api/auth/signup', payload: signupBody({ password: 'password123', confirmPassword: 'password123' }) })
    expect(response.statusCode).toBe(400)
    const { error } = ErrorBodySchema.parse(response.json())
    expect(error.code).toBe('COMMON_PASSWORD')
    expect(error.field).toBe('password')
    expect(error.message).toMatch(/most commonly used passwords/)
  })

  it('refuses an email that already has an account', async () => {
    const { body } = await signUp()
    const response = await call({ method: 'POST', url: '/api/auth/signup', payload: signupBody({ email: body.email.toUpperCase() }) })
    expect(response.statusCode).toBe(409)
    expect(ErrorBodySchema.parse(response.json()).error).toMatchObject({
      code: 'EMAIL_TAKEN',
      message: 'An account with this email already exists. Please try logging in instead.',
    })
  })
})

describe('login and sessions', () => {
  it('gives wrong password and unknown email the same status and body', async () => {
    const { body } = await signUp()
    const wrong = await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: 'not-the-password' } })
    const unknown = await call({ method: 'POST', url: '/api/auth/login', payload: { email: uniqueEmail(), password: 'not-the-password' } })
    expect(wrong.statusCode).toBe(401)
    expect(unknown.statusCode).toBe(401)
    expect(wrong.body).toBe(unknown.body)
    expect(ErrorBodySchema.parse(wrong.json()).error.message).toBe('Invalid email or password')
  })

  it('signs in with a new session each time, and /api/me answers the session user', async () => {
    const { body, cookie: signupCookie } = await signUp()
    const login = await call({ method: 'POST', url: '/api/auth/login', payload: { email: ` ${body.email.toUpperCase()} `, password: body.password } })
    expect(login.statusCode).toBe(200)
    const cookie = sessionCookieFrom(login)
    expect(cookie).not.toBe(signupCookie)
    const me = await call({ method: 'GET', url: '/api/me', cookie })
    expect(me.statusCode).toBe(200)
    expect(SessionUserResponseSchema.parse(me.json()).user.email).toBe(body.email)
    const anonymous = await call({ method: 'GET', url: '/api/me' })
    expect(anonymous.statusCode).toBe(401)
  })

  it('answers 429 with Retry-After past 10 auth POSTs a minute from one address', async () => {
    const ip = newIp()
    const statuses: number[] = []
    let last
    for (let i = 0; i < 11; i++) {
      last = await call({ method: 'POST', url: '/api/auth/login', ip, payload: { email: uniqueEmail(), password: 'whatever-it-is' } })
      statuses.push(last.statusCode)
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true)
    expect(last!.statusCode).toBe(429)
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('slows failed logins per account progressively, even from many addresses', async () => {
    const { body } = await signUp()
    for (let i = 0; i < 5; i++) {
      const response = await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: `wrong-${i}` } })
      expect(response.statusCode).toBe(401)
    }
    const slowed = await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: body.password } })
    expect(slowed.statusCode).toBe(429)
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })

  it('counts each attempt before verifying: a burst of wrong passwords gets at most the free attempts verified', async () => {
    const { body } = await signUp()
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: `wrong-${i}` } })),
    )
    const statuses = burst.map((response) => response.statusCode)
    expect(statuses.filter((status) => status === 401)).toHaveLength(LOGIN_FREE_FAILURES)
    expect(statuses.filter((status) => status === 429)).toHaveLength(12 - LOGIN_FREE_FAILURES)
    // The account now waits: even the right password is refused until the wait is over.
    const slowed = await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: body.password } })
    expect(slowed.statusCode).toBe(429)
  })

  it('refuses a session idle for 7 days, and extends an active one with at most one write an hour', async () => {
    const { cookie, user, response } = await signUp()
    expect(response.cookies.find((c) => c.name === 'session')!.maxAge).toBe((7 * DAY) / 1000)
    const lastVerified = async () =>
      (await database.db.select().from(sessions).where(eq(sessions.userId, user.id)))[0]?.lastVerifiedAt.getTime()
    const first = await lastVerified()
    for (let i = 0; i < 5; i++) {
      clock.advance(5 * 60_000) // 25 minutes of use: no write
      expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
    }
    expect(await lastVerified()).toBe(first)
    clock.advance(40 * 60_000) // past the hour: one write, and the cookie is re-sent
    const renewed = await call({ method: 'GET', url: '/api/me', cookie })
    expect(renewed.cookies.find((c) => c.name === 'session')?.maxAge).toBe((7 * DAY) / 1000)
    expect(await lastVerified()).toBe(clock.now().getTime())
    clock.advance(7 * DAY - 60_000) // a minute short of a week away: still signed in
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
    clock.advance(7 * DAY)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(401)
    expect(await lastVerified()).toBeUndefined()
  })

  it('refuses a session older than 30 days however active it is, and its cookie says so', async () => {
    const { cookie } = await signUp()
    for (let day = 0; day < 30; day += 6) {
      clock.advance(6 * DAY)
      const response = await call({ method: 'GET', url: '/api/me', cookie })
      if (day + 6 < 30) {
        expect(response.statusCode).toBe(200)
        // The renewed cookie never outlives the session: at most what is left of the 30 days.
        expect(response.cookies.find((c) => c.name === 'session')!.maxAge).toBe(Math.min(7 * DAY, (30 - day - 6) * DAY) / 1000)
      } else expect(response.statusCode).toBe(401)
    }
  })

  it('refuses a tampered token', async () => {
    const { cookie } = await signUp()
    const [name, value] = cookie.split('=') as [string, string]
    const [id, secret] = value.split('.') as [string, string]
    const tampered = `${name}=${id}.${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`
    expect((await call({ method: 'GET', url: '/api/me', cookie: tampered })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: `${name}=garbage` })).statusCode).toBe(401)
  })

  it('logs out by deleting the session on the server', async () => {
    const { cookie, user } = await signUp()
    const response = await call({ method: 'POST', url: '/api/auth/logout', cookie })
    expect(response.statusCode).toBe(204)
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([])
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(401)
  })

  it('refuses a cross-origin POST even with a valid cookie', async () => {
    const { cookie } = await signUp()
    const crossSite = await call({ method: 'POST', url: '/api/auth/logout', cookie, headers: { 'sec-fetch-site': 'cross-site' } })
    expect(crossSite.statusCode).toBe(403)
    const evilOrigin = await call({ method: 'POST', url: '/api/auth/logout', cookie, headers: { origin: 'https://evil.example' } })
    expect(evilOrigin.statusCode).toBe(403)
    expect(ErrorBodySchema.parse(evilOrigin.json()).error.code).toBe('FORBIDDEN')
    // The router decodes percent-escapes: an encoded path is the same route and gets the same check.
    const encoded = await call({ method: 'POST', url: '/%61pi/auth/logout', cookie, headers: { origin: 'https://evil.example' } })
    expect(encoded.statusCode).toBe(403)
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
  })
})

describe('the mailer', () => {
  it('hands nodemailer the address alone: nothing in it is read as a name or a second recipient', async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, from: 'Momentum Coach <no-reply@example.com>', log: pino({ level: 'silent' }), logLinks: false })
    const tag = randomBytes(4).toString('hex')
    try {
      for (const to of [`plain-${tag}@example.com`, `x${tag}<attacker@evil.com>`, `victim-${tag}@example.com, attacker@evil.com`, `victim-${tag}@example.com,`]) {
        const sent = composeEmail({ kind: 'password_reset', to, subject: `Probe ${tag}`, greeting: 'Hello,', paragraphs: [], action: 'Open', link: 'http://localhost:3000/', footer: '' })
        // The odd recipients are refused whole; only the plain address gets the message.
        await mailer.send(sent).catch(() => undefined)
      }
    } finally {
      mailer.close()
    }
    const probes = smtp.mails.filter((mail) => mail.subject === `Probe ${tag}`)
    expect(probes.map((mail) => mail.to)).toEqual([[`plain-${tag}@example.com`]])
  })
})

describe('email confirmation', () => {
  it('emails a single-use link (text and HTML parts, under APP_URL) that confirms the account', async () => {
    const { body, cookie } = await signUp()
    const mail = await smtp.waitForMail(body.email, /Confirm your email/)
    expect(mail.raw).toMatch(/Content-Type: text\/plain/)
    expect(mail.raw).toMatch(/Content-Type: text\/html/)
    expect(mail.raw).not.toContain('Ada Lovelace')
    const link = smtp.linkIn(mail)
    // The token rides in the fragment, which no browser sends to a server (nor to a log).
    expect(link).toMatch(/^http:\/\/localhost:3000\/auth\?mode=confirm#token=[a-z2-7]{52}$/)
    const token = smtp.tokenIn(mail)
    const confirmed = await call({ method: 'POST', url: '/api/auth/confirm-email', payload: { token } })
    expect(confirmed.statusCode).toBe(200)
    expect(SessionUserResponseSchema.parse(confirmed.json()).user.emailConfirmed).toBe(true)
    const me = SessionUserResponseSchema.parse((await call({ method: 'GET', url: '/api/me', cookie })).json())
    expect(me.user.emailConfirmed).toBe(true)
    const again = await call({ method: 'POST', url: '/api/auth/confirm-email', payload: { token } })
    expect(again.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(again.json()).error.code).toBe('INVALID_TOKEN')
  })

  it('refuses an expired confirmation link (24 h)', async () => {
    const { body } = await signUp()
    const token = smtp.tokenIn(await smtp.waitForMail(body.email, /Confirm your email/))
    clock.advance(24 * HOUR + 1000)
    const response = await call({ method: 'POST', url: '/api/auth/confirm-email', payload: { token } })
    expect(response.statusCode).toBe(400)
  })

  it('sends at most one confirmation email a minute per account', async () => {
    const { body, cookie } = await signUp()
    await smtp.waitForMail(body.email, /Confirm your email/)
    // The sign-up just sent one: a resend within the minute is refused.
    const second = await call({ method: 'POST', url: '/api/auth/resend-confirmation', cookie })
    expect(second.statusCode).toBe(429)
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0)
  })
})

describe('password reset', () => {
  it('answers the same for known and unknown emails', async () => {
    const { body } = await signUp()
    const known = await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const unknown = await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: uniqueEmail() } })
    expect(known.statusCode).toBe(202)
    expect(unknown.statusCode).toBe(202)
    expect(known.body).toBe(unknown.body)
  })

  it('does the same work for known and unknown emails: one queued job each, naming only the address', async () => {
    const { body } = await signUp()
    const stranger = uniqueEmail()
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: stranger } })
    const queue = new Queue('email', { connection: redis.redis, prefix: bullmqPrefix() })
    const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed'])
    await queue.close()
    const resets = jobs.filter((job) => job.data.kind === 'reset-password')
    expect(resets.filter((job) => job.data.email === body.email).map((job) => [job.name, job.data])).toEqual([
      ['send-email', { kind: 'reset-password', email: body.email }],
    ])
    expect(resets.filter((job) => job.data.email === stranger).map((job) => [job.name, job.data])).toEqual([
      ['send-email', { kind: 'reset-password', email: stranger }],
    ])
    await smtp.waitForMail(body.email, /Reset your/)
    expect(smtp.mails.some((mail) => mail.to.includes(stranger))).toBe(false)
  })

  it('resets through the emailed link once, revoking every other session', async () => {
    const { body, cookie: first } = await signUp()
    const second = sessionCookieFrom(await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: body.password } }))
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const mail = await smtp.waitForMail(body.email, /Reset your/)
    // The address is not confirmed yet: the name typed at sign-up stays out of the email.
    expect(mail.text).toMatch(/^Hello,$/m)
    expect(mail.raw).not.toContain('Ada Lovelace')
    const token = smtp.tokenIn(mail)
    const reset = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: 'copper-meadow-whistle', confirmPassword: 'copper-meadow-whistle' },
    })
    expect(reset.statusCode).toBe(200)
    const fresh = sessionCookieFrom(reset)
    expect((await call({ method: 'GET', url: '/api/me', cookie: first })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: second })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: fresh })).statusCode).toBe(200)
    const reused = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: 'another-quiet-orchard', confirmPassword: 'another-quiet-orchard' },
    })
    expect(reused.statusCode).toBe(400)
    const login = await call({ method: 'POST', url: '/api/auth/login', payload: { email: body.email, password: 'copper-meadow-whistle' } })
    expect(login.statusCode).toBe(200)
  })

  it('checks the link before the new password: an invalid link is refused as such, whatever the password', async () => {
    const response = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: 'not-a-real-token-at-all-0000', password: 'password123', confirmPassword: 'password123' },
    })
    expect(response.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(response.json()).error).toMatchObject({ code: 'INVALID_TOKEN', field: 'token' })
  })

  it('keeps the link usable when the new password is refused', async () => {
    const { body } = await signUp()
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const token = smtp.tokenIn(await smtp.waitForMail(body.email, /Reset your/))
    const common = await call({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password: 'password123', confirmPassword: 'password123' } })
    expect(ErrorBodySchema.parse(common.json()).error).toMatchObject({ code: 'COMMON_PASSWORD', field: 'password' })
    const reset = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: 'copper-meadow-whistle', confirmPassword: 'copper-meadow-whistle' },
    })
    expect(reset.statusCode).toBe(200)
  })

  it("retires the person's other reset links, and confirms the email (the link proved the address)", async () => {
    const { body, user } = await signUp()
    // An earlier reset link, still unused and valid.
    const earlier = 'earlierresetlinkaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    await database.db.insert(emailTokens).values({
      userId: user.id,
      purpose: 'reset_password',
      tokenHash: hashSecret(earlier),
      expiresAt: new Date(clock.now().getTime() + HOUR),
      createdAt: clock.now(),
    })
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const token = smtp.tokenIn(await smtp.waitForMail(body.email, /Reset your/))
    const reset = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: 'copper-meadow-whistle', confirmPassword: 'copper-meadow-whistle' },
    })
    expect(reset.statusCode).toBe(200)
    expect(SessionUserResponseSchema.parse(reset.json()).user.emailConfirmed).toBe(true)
    const [row] = await database.db.select().from(users).where(eq(users.id, user.id))
    expect(row!.emailConfirmedAt).toEqual(clock.now())
    const again = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: earlier, password: 'another-quiet-orchard', confirmPassword: 'another-quiet-orchard' },
    })
    expect(again.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(again.json()).error.code).toBe('INVALID_TOKEN')
  })

  it('lets only one of two simultaneous resets with the same link through', async () => {
    const { body } = await signUp()
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const token = smtp.tokenIn(await smtp.waitForMail(body.email, /Reset your/))
    const both = await Promise.all(
      ['copper-meadow-whistle', 'another-quiet-orchard'].map((password) =>
        call({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password, confirmPassword: password } }),
      ),
    )
    expect(both.map((response) => response.statusCode).sort()).toEqual([200, 400])
  })

  it('refuses a reset link older than an hour', async () => {
    const { body } = await signUp()
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: body.email } })
    const token = smtp.tokenIn(await smtp.waitForMail(body.email, /Reset your/))
    clock.advance(HOUR + 1000)
    const response = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, password: 'copper-meadow-whistle', confirmPassword: 'copper-meadow-whistle' },
    })
    expect(response.statusCode).toBe(400)
  })
})

describe('post-login routing (spec 1 §4)', () => {
  const destination = async (cookie: string) => (await call({ method: 'POST', url: '/api/auth/destination', cookie })).json() as { path: string }

  it('follows the spec’s five cases', async () => {
    const neither = await signUp()
    expect(await destination(neither.cookie)).toEqual({ path: '/goal-intake' })

    const goalsUnpaid = await signUp()
    await database.db.insert(goals).values({ userId: goalsUnpaid.user.id, lifeArea: 'faith', satisfactionScore: 5 })
    expect(await destination(goalsUnpaid.cookie)).toEqual({ path: '/payment' })

    const paidNoGoals = await signUp()
    await database.db.insert(subscribers).values({ userId: paidNoGoals.user.id, subscribed: true, tier: 'basic', status: 'active', source: 'testing' })
    expect(await destination(paidNoGoals.cookie)).toEqual({ path: '/goal-intake' })

    const paidWithGoals = await signUp()
    await database.db.update(profiles).set({ paymentStatus: 'paid' }).where(eq(profiles.id, paidWithGoals.user.id))
    await database.db.insert(goals).values({ userId: paidWithGoals.user.id, lifeArea: 'fun', satisfactionScore: 7 })
    expect(await destination(paidWithGoals.cookie)).toEqual({ path: '/dashboard' })
    const [profile] = await database.db.select().from(profiles).where(eq(profiles.id, paidWithGoals.user.id))
    expect(profile!.onboardingCompleted).toBe(true)

    const onboarded = await signUp()
    await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, onboarded.user.id))
    expect(await destination(onboarded.cookie)).toEqual({ path: '/dashboard' })
  })
})

describe('the embedded server (no Redis): emails from the in-process queue', () => {
  let embeddedDb: TestDatabase
  let embedded: FastifyInstance
  let sink: Awaited<ReturnType<typeof startSmtpSink>>

  beforeAll(async () => {
    embeddedDb = await createTestDatabase()
    sink = await startSmtpSink()
    embedded = await buildTestApp({ database: embeddedDb, clock, env: { SMTP_URL: sink.url } })
  })

  afterAll(async () => {
    await embedded?.close()
    await sink?.close()
    await embeddedDb?.destroy()
  })

  const post = (url: string, payload: Record<string, unknown>) =>
    embedded.inject({ method: 'POST', url, payload, remoteAddress: '127.0.0.1', headers: { origin: APP_ORIGIN, 'x-forwarded-for': newIp() } })

  it('answers a reset request while the mail server still holds the email', async () => {
    const body = signupBody()
    expect((await post('/api/auth/signup', body)).statusCode).toBe(201)
    await sink.waitForMail(body.email, /Confirm your email/)

    const held = sink.hold()
    try {
      const answer = post('/api/auth/forgot-password', { email: body.email })
      // The email has reached the mail server, which does not accept it yet...
      await sink.waitForMail(body.email, /Reset your/)
      // ...and the answer is there all the same: it never waited for SMTP (before, it hung here).
      const response = await answer
      expect(response.statusCode).toBe(202)
      expect(response.json()).toEqual({ message: 'If an account exists for that email, we sent a link to reset the password. Please check your inbox.' })
    } finally {
      held.release()
    }
  })

  it('sends the confirmation email after sign-up without the person’s name in it', async () => {
    const body = signupBody({ fullName: 'Click https://evil.example now' })
    expect((await post('/api/auth/signup', body)).statusCode).toBe(201)
    const mail = await sink.waitForMail(body.email, /Confirm your email/)
    expect(mail.text).toMatch(/^Hello,$/m)
    expect(mail.raw).not.toContain('evil.example')
  })
})

describe('tokens stay out of the logs', () => {
  let logDb: TestDatabase
  let logged: FastifyInstance
  const lines: string[] = []

  beforeAll(async () => {
    logDb = await createTestDatabase()
    const stream = { write: (line: string) => void lines.push(line) }
    logged = await buildApp(testConfig({ LOG_LEVEL: 'info' }), { database: logDb, clock, logger: { level: 'info', stream } })
    await logged.ready()
  })

  afterAll(async () => {
    await logged?.close()
    await logDb?.destroy()
  })

  it('logs the path of each request, never its query string', async () => {
    const secret = 'secrettokenabcdefghijklmnopqrstuvwxyz234567'
    await logged.inject({ method: 'GET', url: `/auth?mode=reset&token=${secret}` })
    await logged.inject({ method: 'GET', url: `/api/health?token=${secret}` })
    const requests = lines.map((line) => JSON.parse(line) as { msg: string; url?: string }).filter((line) => line.msg === 'request completed')
    expect(requests.map((line) => line.url)).toEqual(['/auth', '/api/health'])
    expect(lines.join('\n')).not.toContain(secret)
  })
})
