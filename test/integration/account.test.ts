import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountResponseSchema, PHONE_CODE_ATTEMPTS, SessionsResponseSchema } from '#common/account'
import { ErrorBodySchema } from '#common/errors'
import { buildApp } from '#server/app'
import { hashPassword } from '#server/auth/password'
import { createSession, SESSION_SEEN_MS } from '#server/auth/session'
import { contactChanges, emailTokens, phoneProofs, profiles, sessions, users, type User } from '#server/db/schema'
import { LOGIN_FREE_FAILURES } from '#server/services/accounts'
import { deleteExpiredRecords } from '#server/services/maintenance'
import { FakeTwilio } from '../fakes/twilio'
import { APP_ORIGIN, buildTestApp, sessionCookieFrom, testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { startSmtpSink } from '../helpers/smtp-sink'

/**
 * The account page's API (issue 16): the profile, email and phone changes with their
 * confirmations, the password and the sessions. The real app on its own database, without Redis
 * (emails from the in-process queue to a real SMTP sink; texts, without Twilio, to the log).
 */
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const PASSWORD = 'amber-lantern-orchard-7'
const NEW_PASSWORD = 'copper-meadow-whistle-9'
const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'

let database: TestDatabase
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let app: FastifyInstance
let passwordHash: string
const clock = fakeClock()
const logLines: string[] = []
const bodies: string[] = []

let ipCounter = 0
const newIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
  // The log is read for the phone codes (no Twilio: texts are written to it).
  const stream = { write: (line: string) => void logLines.push(line) }
  app = await buildApp(testConfig({ SMTP_URL: smtp.url, LOG_LEVEL: 'info' }), { database, clock, logger: { level: 'info', stream } })
  await app.ready()
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
  for (const body of bodies) expect(body).not.toMatch(/passwordHash|secretHash|secret_hash|\$argon2|amber-lantern|copper-meadow/)
})

type Person = { user: User; cookie: string; sessionId: string }

/** A member with a known password and a session (with a user agent), straight in the database. */
async function person(options: { userAgent?: string; confirmed?: boolean; phoneNumber?: string } = {}): Promise<Person> {
  const user = await insertUser(database.db, {
    passwordHash,
    emailConfirmedAt: options.confirmed === false ? null : clock.now(),
    ...(options.phoneNumber ? { phoneNumber: options.phoneNumber } : {}),
  })
  return { user, ...(await sessionOf(user, options.userAgent ?? CHROME_MAC)) }
}

async function sessionOf(user: User, userAgent = CHROME_MAC): Promise<{ cookie: string; sessionId: string }> {
  const session = await createSession(database.db, clock, user.id, { userAgent, ip: '10.0.0.1' })
  return { cookie: `session=${session.token}`, sessionId: session.token.split('.')[0]! }
}

async function call(options: InjectOptions & { cookie?: string; ip?: string }) {
  const { cookie, ip, ...rest } = options
  const response = await app.inject({
    ...rest,
    remoteAddress: '127.0.0.1',
    headers: { origin: APP_ORIGIN, 'x-forwarded-for': ip ?? newIp(), ...(cookie ? { cookie } : {}), ...(rest.headers ?? {}) },
  })
  bodies.push(response.body)
  return response
}

const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error
const accountOf = (response: { json(): unknown }) => AccountResponseSchema.parse(response.json())
const uniqueEmail = () => `moved-${randomBytes(4).toString('hex')}@example.com`
const userRow = async (id: string) => (await database.db.select().from(users).where(eq(users.id, id)))[0]!

/** The last code texted to `phone` (written to the log: no Twilio here). */
function codeTextedTo(phoneDigits: string): string {
  for (const line of [...logLines].reverse()) {
    const entry = JSON.parse(line) as { to?: string; body?: string }
    if (entry.to === `+1${phoneDigits}` && entry.body) {
      const code = /(\d{6}) is your code/.exec(entry.body)?.[1]
      if (code) return code
    }
  }
  throw new Error(`no code texted to ${phoneDigits}`)
}

const login = (email: string, password: string) => call({ method: 'POST', url: '/api/auth/login', payload: { email, password } })

/** Every account operation, with a valid body (the guard and the CSRF hook run before any of it matters). */
const OPERATIONS: Array<{ method: InjectOptions['method']; url: string; payload?: Record<string, unknown> }> = [
  { method: 'GET', url: '/api/account' },
  { method: 'PATCH', url: '/api/account/profile', payload: { fullName: 'Someone Else' } },
  { method: 'POST', url: '/api/account/email', payload: { newEmail: 'someone@example.com', currentPassword: PASSWORD } },
  { method: 'DELETE', url: '/api/account/email' },
  { method: 'POST', url: '/api/account/phone', payload: { phoneNumber: '2025001111', currentPassword: PASSWORD } },
  { method: 'POST', url: '/api/account/phone/resend' },
  { method: 'POST', url: '/api/account/phone/verification' },
  { method: 'POST', url: '/api/account/phone/verification/confirm', payload: { code: '123456' } },
  { method: 'POST', url: '/api/account/phone/confirm', payload: { code: '123456' } },
  { method: 'DELETE', url: '/api/account/phone' },
  { method: 'POST', url: '/api/account/password', payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } },
  { method: 'GET', url: '/api/account/sessions' },
  { method: 'DELETE', url: `/api/account/sessions/${'a'.repeat(32)}` },
  { method: 'POST', url: '/api/account/sessions/sign-out-others' },
]

describe('who may call it', () => {
  it('answers 401 without a session, for every operation', async () => {
    for (const operation of OPERATIONS) {
      const response = await call(operation)
      expect(response.statusCode, `${operation.method} ${operation.url}`).toBe(401)
      expect(errorOf(response).code).toBe('UNAUTHENTICATED')
    }
  })

  it('refuses every change from another origin (403), and changes nothing', async () => {
    const { user, cookie } = await person()
    for (const operation of OPERATIONS.filter((candidate) => candidate.method !== 'GET')) {
      for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
        const response = await call({ ...operation, cookie, headers })
        expect(response.statusCode, `${operation.method} ${operation.url}`).toBe(403)
        expect(errorOf(response).code).toBe('FORBIDDEN')
      }
    }
    // Confirming an email change needs no session, and is same-origin too.
    expect((await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token: 'a'.repeat(52) }, headers: { origin: 'https://evil.example' } })).statusCode).toBe(403)
    const row = await userRow(user.id)
    expect(row.fullName).toBe(user.fullName)
    expect(row.passwordHash).toBe(passwordHash)
    expect((await call({ method: 'GET', url: '/api/account', cookie })).statusCode).toBe(200)
  })

  it('shows the signed-in person their own profile, and marks it no-store', async () => {
    const { user, cookie } = await person({ phoneNumber: '2025334444' })
    const response = await call({ method: 'GET', url: '/api/account', cookie })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(accountOf(response)).toEqual({
      fullName: user.fullName,
      email: user.email,
      emailConfirmed: true,
      phoneNumber: '2025334444',
      pendingEmail: null,
      pendingPhone: null,
      textsLive: false,
      phoneVerified: true,
      phoneStopped: false,
      pendingVerification: null,
      smsDisplayNumber: '(555) 555-0123',
    })
  })
})

describe('the name', () => {
  it('changes the account’s and the profile’s name, trimmed, for this person only', async () => {
    const a = await person()
    const b = await person()
    const response = await call({ method: 'PATCH', url: '/api/account/profile', cookie: a.cookie, payload: { fullName: '  Ada King  ', id: b.user.id } })
    expect(response.statusCode).toBe(200)
    expect(accountOf(response).fullName).toBe('Ada King')
    expect((await userRow(a.user.id)).fullName).toBe('Ada King')
    const [profile] = await database.db.select().from(profiles).where(eq(profiles.id, a.user.id))
    expect(profile!.name).toBe('Ada King')
    expect((await userRow(b.user.id)).fullName).toBe(b.user.fullName)
    const me = await call({ method: 'GET', url: '/api/me', cookie: a.cookie })
    expect(me.json()).toMatchObject({ user: { fullName: 'Ada King' } })
  })

  it.each([
    [{ fullName: '   ' }, 'fullName', 'Full name is required'],
    [{ fullName: 'x'.repeat(201) }, 'fullName', 'Full name must be at most 200 characters'],
    [{}, 'fullName', 'Full name is required'],
    [{ fullName: 'a\u0000b' }, 'fullName', 'must be plain text'],
  ])('refuses %j with a 400 naming the field', async (payload, field, message) => {
    const { cookie } = await person()
    const response = await call({ method: 'PATCH', url: '/api/account/profile', cookie, payload })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_FAILED', field })
    expect(errorOf(response).message).toContain(message)
  })

  it('allows 20 changes a minute per person, then 429 with Retry-After', async () => {
    const { cookie } = await person()
    const other = await person()
    for (let i = 0; i < 20; i++) {
      expect((await call({ method: 'PATCH', url: '/api/account/profile', cookie, payload: { fullName: `Name ${i}` } })).statusCode).toBe(200)
    }
    const limited = await call({ method: 'PATCH', url: '/api/account/profile', cookie, payload: { fullName: 'One more' } })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // Per person: someone else is not limited by it.
    expect((await call({ method: 'PATCH', url: '/api/account/profile', cookie: other.cookie, payload: { fullName: 'Fine' } })).statusCode).toBe(200)
  })
})

describe('changing the email', () => {
  it('emails a link to the new address and tells the old one, which keeps working until the link is followed', async () => {
    const { user, cookie } = await person()
    const newEmail = uniqueEmail()
    const asked = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: `  ${newEmail.toUpperCase()} `, currentPassword: PASSWORD } })
    expect(asked.statusCode).toBe(202)
    expect(accountOf(asked)).toMatchObject({ email: user.email, pendingEmail: { email: newEmail } })

    const link = await smtp.waitForMail(newEmail, /Confirm your new email/)
    expect(smtp.linkIn(link)).toMatch(/^http:\/\/localhost:3000\/auth\?mode=change-email#token=[a-z2-7]{52}$/)
    // Nothing the person typed goes to an address not proven theirs.
    expect(link.text).not.toContain(user.fullName)
    const notice = await smtp.waitForMail(user.email, /email is changing/)
    expect(notice.text).toContain(newEmail)
    // Only the hash of the token is stored.
    const token = smtp.tokenIn(link)
    const [pending] = await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))
    expect(Buffer.from(pending!.secretHash!).toString('hex')).not.toContain(Buffer.from(token).toString('hex'))

    // Until then: the old address signs in, the new one does not.
    expect((await login(user.email, PASSWORD)).statusCode).toBe(200)
    expect((await login(newEmail, PASSWORD)).statusCode).toBe(401)

    // The link works without a session (another browser), once.
    const confirmed = await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })
    expect(confirmed.statusCode).toBe(200)
    expect(confirmed.json()).toEqual({ email: newEmail })
    expect((await userRow(user.id)).email).toBe(newEmail)
    expect((await userRow(user.id)).emailConfirmedAt).not.toBeNull()
    expect((await login(newEmail, PASSWORD)).statusCode).toBe(200)
    expect((await login(user.email, PASSWORD)).statusCode).toBe(401)
    const again = await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })
    expect(again.statusCode).toBe(400)
    expect(errorOf(again)).toMatchObject({ code: 'INVALID_TOKEN', field: 'token' })
    expect(accountOf(await call({ method: 'GET', url: '/api/account', cookie })).pendingEmail).toBeNull()
  })

  it('retires the links sent to the old address once the new one is confirmed', async () => {
    const { user, cookie } = await person()
    await database.db.insert(emailTokens).values({ userId: user.id, purpose: 'reset_password', tokenHash: new Uint8Array(randomBytes(32)), expiresAt: new Date(clock.now().getTime() + HOUR), createdAt: clock.now() })
    const newEmail = uniqueEmail()
    await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail, currentPassword: PASSWORD } })
    const token = smtp.tokenIn(await smtp.waitForMail(newEmail, /Confirm your new email/))
    expect((await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })).statusCode).toBe(200)
    const unused = await database.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id))
    expect(unused.every((row) => row.usedAt !== null)).toBe(true)
  })

  it('asks for the current password under the login’s limits: 400 naming the field, then 429, and logins wait too', async () => {
    const { user, cookie } = await person()
    const wrong = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: uniqueEmail(), currentPassword: 'not-my-password' } })
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong)).toEqual({ code: 'WRONG_PASSWORD', message: 'Your current password is not correct.', field: 'currentPassword' })
    expect(await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))).toEqual([])
    // The free tries (the route's own limit, 5 a minute, is real time: the service is asked directly).
    const { accounts } = app.services
    for (let i = 1; i < LOGIN_FREE_FAILURES; i++) {
      await expect(accounts.requestEmailChange(user, { newEmail: uniqueEmail(), currentPassword: `wrong-${i}` })).rejects.toMatchObject({ code: 'WRONG_PASSWORD' })
    }
    // Counted before it is verified: even the right password waits now, here and at login.
    await expect(accounts.changePassword(user, 'no-session', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).rejects.toMatchObject({ code: 'RATE_LIMITED' })
    const limited = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect((await login(user.email, PASSWORD)).statusCode).toBe(429)
    clock.advance(HOUR)
    expect((await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } })).statusCode).toBe(202)
  })

  it.each([
    [{ newEmail: 'not-an-email', currentPassword: PASSWORD }, 'newEmail'],
    [{ newEmail: '', currentPassword: PASSWORD }, 'newEmail'],
    [{ newEmail: 'a@example.com' }, 'currentPassword'],
    [{ newEmail: 'a@example.com', currentPassword: '' }, 'currentPassword'],
  ])('refuses %j with a 400 naming the field', async (payload, field) => {
    const { cookie } = await person()
    const response = await call({ method: 'POST', url: '/api/account/email', cookie, payload })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_FAILED', field })
  })

  it('refuses the address it already has, and one another account has', async () => {
    const { user, cookie } = await person()
    const other = await person()
    const same = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: user.email, currentPassword: PASSWORD } })
    expect(same.statusCode).toBe(400)
    expect(errorOf(same).field).toBe('newEmail')
    const taken = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: other.user.email, currentPassword: PASSWORD } })
    expect(taken.statusCode).toBe(409)
    expect(errorOf(taken)).toMatchObject({ code: 'EMAIL_TAKEN', field: 'newEmail' })
  })

  it('sends at most one link a minute per person; a new request replaces the last link', async () => {
    const { user, cookie } = await person()
    const first = uniqueEmail()
    expect((await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: first, currentPassword: PASSWORD } })).statusCode).toBe(202)
    const firstToken = smtp.tokenIn(await smtp.waitForMail(first, /Confirm your new email/))
    const soon = await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } })
    expect(soon.statusCode).toBe(429)
    expect(errorOf(soon).code).toBe('RATE_LIMITED')
    clock.advance(MINUTE)
    const second = uniqueEmail()
    expect((await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: second, currentPassword: PASSWORD } })).statusCode).toBe(202)
    await smtp.waitForMail(second, /Confirm your new email/)
    expect(errorOf(await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token: firstToken } })).code).toBe('INVALID_TOKEN')
    expect((await userRow(user.id)).email).toBe(user.email)
  })

  it('lets the person cancel the change (the link stops working), and only their own', async () => {
    const a = await person()
    const b = await person()
    const newEmail = uniqueEmail()
    await call({ method: 'POST', url: '/api/account/email', cookie: a.cookie, payload: { newEmail, currentPassword: PASSWORD } })
    const token = smtp.tokenIn(await smtp.waitForMail(newEmail, /Confirm your new email/))
    // B cancelling cancels B's (none), never A's.
    expect(accountOf(await call({ method: 'DELETE', url: '/api/account/email', cookie: b.cookie })).pendingEmail).toBeNull()
    expect(accountOf(await call({ method: 'GET', url: '/api/account', cookie: a.cookie })).pendingEmail).toMatchObject({ email: newEmail })
    expect(accountOf(await call({ method: 'DELETE', url: '/api/account/email', cookie: a.cookie })).pendingEmail).toBeNull()
    expect((await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })).statusCode).toBe(400)
  })

  it('refuses a link older than 24 hours', async () => {
    const { cookie } = await person()
    const newEmail = uniqueEmail()
    await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail, currentPassword: PASSWORD } })
    const token = smtp.tokenIn(await smtp.waitForMail(newEmail, /Confirm your new email/))
    clock.advance(24 * HOUR + 1)
    const late = await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })
    expect(late.statusCode).toBe(400)
    expect(errorOf(late).code).toBe('INVALID_TOKEN')
  })

  it('refuses the link if the address was taken meanwhile (409), and a malformed token (400 naming it)', async () => {
    const { cookie } = await person()
    const newEmail = uniqueEmail()
    await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail, currentPassword: PASSWORD } })
    const token = smtp.tokenIn(await smtp.waitForMail(newEmail, /Confirm your new email/))
    await insertUser(database.db, { email: newEmail })
    const taken = await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token } })
    expect(taken.statusCode).toBe(409)
    expect(errorOf(taken).code).toBe('EMAIL_TAKEN')
    const malformed = await call({ method: 'POST', url: '/api/account/email/confirm', payload: { token: 'short' } })
    expect(malformed.statusCode).toBe(400)
    expect(errorOf(malformed).field).toBe('token')
  })

  it('a password reset cancels a pending change', async () => {
    const { user, cookie } = await person()
    await call({ method: 'POST', url: '/api/account/email', cookie, payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } })
    await call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: user.email } })
    const token = smtp.tokenIn(await smtp.waitForMail(user.email, /Reset your/))
    expect((await call({ method: 'POST', url: '/api/auth/reset-password', payload: { token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } })).statusCode).toBe(200)
    expect(await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))).toEqual([])
  })
})

describe('changing the phone number', () => {
  it('texts a code to the new number (the log, without Twilio); calls and texts move only once it is entered', async () => {
    const { user, cookie } = await person({ phoneNumber: '2025110000' })
    // The current password first: a new number redirects every call and text.
    const wrongPassword = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '(202) 522-3333', currentPassword: 'not-the-password-1' } })
    expect(wrongPassword.statusCode).toBe(400)
    expect(errorOf(wrongPassword)).toMatchObject({ code: 'WRONG_PASSWORD', field: 'currentPassword' })
    const asked = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '(202) 522-3333', currentPassword: PASSWORD } })
    expect(asked.statusCode).toBe(202)
    expect(accountOf(asked)).toMatchObject({ phoneNumber: '2025110000', pendingPhone: { phoneNumber: '2025223333' }, textsLive: false })
    const code = codeTextedTo('2025223333')
    // Only a hash is kept; the number the calls and texts use is still the old one.
    expect(JSON.stringify(await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id)))).not.toContain(code)
    expect((await userRow(user.id)).phoneNumber).toBe('2025110000')

    const wrongCode = code === '000000' ? '111111' : '000000'
    const wrong = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: wrongCode } })
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong)).toMatchObject({ code: 'INVALID_CODE', field: 'code' })

    const confirmed = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: ` ${code} ` } })
    expect(confirmed.statusCode).toBe(200)
    expect(accountOf(confirmed)).toMatchObject({ phoneNumber: '2025223333', pendingPhone: null })
    expect((await userRow(user.id)).phoneNumber).toBe('2025223333')
    const [profile] = await database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(profile!.phoneNumber).toBe('2025223333')
    // The account's address is told, with what to do if it was not the person.
    const told = await smtp.waitForMail(user.email, /phone number was changed/)
    expect(told.text).toContain('(202) 522-3333')
    expect(told.text).toMatch(/Not you\? Reset your password/)
    // Used once.
    expect((await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code } })).statusCode).toBe(400)
  })

  it(`voids the code after ${PHONE_CODE_ATTEMPTS} wrong ones: the right one is refused too`, async () => {
    const { user, cookie } = await person({ phoneNumber: '2025110001' })
    await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025223334', currentPassword: PASSWORD } })
    const code = codeTextedTo('2025223334')
    const wrongCode = code === '000000' ? '111111' : '000000'
    const answers = []
    for (let i = 0; i < PHONE_CODE_ATTEMPTS; i++) {
      answers.push(errorOf(await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: wrongCode } })).message)
    }
    expect(answers.at(-1)).toMatch(/last try/)
    const right = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code } })
    expect(right.statusCode).toBe(400)
    expect(errorOf(right).message).toMatch(/expired|replaced/)
    expect((await userRow(user.id)).phoneNumber).toBe('2025110001')
  })

  it('counts a burst of wrong codes one at a time', async () => {
    const { cookie } = await person({ phoneNumber: '2025110002' })
    await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025223335', currentPassword: PASSWORD } })
    const code = codeTextedTo('2025223335')
    const wrongCode = code === '000000' ? '111111' : '000000'
    const burst = await Promise.all(Array.from({ length: 8 }, () => call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: wrongCode } })))
    expect(burst.every((response) => response.statusCode === 400)).toBe(true)
    expect((await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code } })).statusCode).toBe(400)
  })

  it('refuses a code older than 10 minutes', async () => {
    const { cookie } = await person({ phoneNumber: '2025110003' })
    await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025223336', currentPassword: PASSWORD } })
    const code = codeTextedTo('2025223336')
    clock.advance(10 * MINUTE)
    const late = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code } })
    expect(late.statusCode).toBe(400)
    expect(errorOf(late).code).toBe('INVALID_CODE')
  })

  it('texts at most one code a minute and five an hour per person', async () => {
    const { cookie } = await person({ phoneNumber: '2025110004' })
    const ask = async (digits: string) => (await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: digits, currentPassword: PASSWORD } })).statusCode
    expect(await ask('2025440000')).toBe(202)
    clock.advance(30_000)
    const early = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025440009', currentPassword: PASSWORD } })
    expect(early.statusCode).toBe(429)
    expect(errorOf(early).code).toBe('RATE_LIMITED')
    expect(Number(early.headers['retry-after'])).toBeGreaterThan(0)
    const statuses: number[] = []
    for (let i = 1; i <= 4; i++) {
      clock.advance(MINUTE)
      statuses.push(await ask(`202544000${i}`))
    }
    // The refused one counted against the hour too: four more, and the hour is spent.
    expect(statuses).toEqual([202, 202, 202, 429])
  })

  it.each([
    [{ phoneNumber: '555-1234' }, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
    [{}, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
  ])('refuses %j with a 400 naming the field', async (payload, field, message) => {
    const { cookie } = await person()
    const response = await call({ method: 'POST', url: '/api/account/phone', cookie, payload })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_FAILED', field })
    expect(errorOf(response).message).toContain(message)
  })

  it('refuses its own number, and a code that is not six digits', async () => {
    const { cookie } = await person({ phoneNumber: '2025110005' })
    const same = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '202-511-0005', currentPassword: PASSWORD } })
    expect(same.statusCode).toBe(400)
    expect(errorOf(same).field).toBe('phoneNumber')
    const badCode = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: '12ab' } })
    expect(badCode.statusCode).toBe(400)
    expect(errorOf(badCode).field).toBe('code')
  })

  it('never lets one person confirm or cancel another’s change', async () => {
    const a = await person({ phoneNumber: '2025110006' })
    const b = await person({ phoneNumber: '2025110007' })
    await call({ method: 'POST', url: '/api/account/phone', cookie: a.cookie, payload: { phoneNumber: '2025223337', currentPassword: PASSWORD } })
    const code = codeTextedTo('2025223337')
    // B has no change waiting: A's code means nothing for B.
    expect((await call({ method: 'POST', url: '/api/account/phone/confirm', cookie: b.cookie, payload: { code } })).statusCode).toBe(400)
    await call({ method: 'DELETE', url: '/api/account/phone', cookie: b.cookie })
    expect((await userRow(b.user.id)).phoneNumber).toBe('2025110007')
    expect((await call({ method: 'POST', url: '/api/account/phone/confirm', cookie: a.cookie, payload: { code } })).statusCode).toBe(200)
    expect((await userRow(a.user.id)).phoneNumber).toBe('2025223337')
  })

  it('leaves unconfirmed changes to the nightly clean-up once expired', async () => {
    const { user, cookie } = await person({ phoneNumber: '2025110008' })
    await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025223338', currentPassword: PASSWORD } })
    await deleteExpiredRecords(database.db, clock.now())
    expect(await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))).toHaveLength(1)
    clock.advance(11 * MINUTE)
    expect((await deleteExpiredRecords(database.db, clock.now())).contactChanges).toBeGreaterThanOrEqual(1)
    expect(await database.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))).toEqual([])
  })
})

describe('changing the password', () => {
  it('needs the current one; signs every other session out (this one stays) and emails the person', async () => {
    const { user, cookie } = await person()
    const elsewhere = await sessionOf(user, SAFARI_IPHONE)
    const someoneElse = await person()
    const changed = await call({ method: 'POST', url: '/api/account/password', cookie, payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } })
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toEqual({ signedOut: 1 })
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(200)
    expect((await call({ method: 'GET', url: '/api/me', cookie: elsewhere.cookie })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: someoneElse.cookie })).statusCode).toBe(200)
    expect((await login(user.email, PASSWORD)).statusCode).toBe(401)
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(200)
    const mail = await smtp.waitForMail(user.email, /password was changed/)
    expect(mail.text).toContain('every other device signed in to it was signed out')
  })

  it('refuses a wrong current password (400 naming it), a common or mismatched new one, and the same one', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ currentPassword: 'wrong-password', newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, 'WRONG_PASSWORD', 'currentPassword'],
      [{ currentPassword: PASSWORD, newPassword: 'password123', confirmPassword: 'password123' }, 'COMMON_PASSWORD', 'newPassword'],
      [{ currentPassword: PASSWORD, newPassword: 'short', confirmPassword: 'short' }, 'VALIDATION_FAILED', 'newPassword'],
      [{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: 'something-else-entirely' }, 'VALIDATION_FAILED', 'confirmPassword'],
      [{ currentPassword: PASSWORD, newPassword: PASSWORD, confirmPassword: PASSWORD }, 'VALIDATION_FAILED', 'newPassword'],
      [{ newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, 'VALIDATION_FAILED', 'currentPassword'],
    ]
    for (const [payload, code, field] of cases) {
      const { user, cookie } = await person()
      const response = await call({ method: 'POST', url: '/api/account/password', cookie, payload })
      expect(response.statusCode, JSON.stringify(payload)).toBe(400)
      expect(errorOf(response)).toMatchObject({ code, field })
      expect((await userRow(user.id)).passwordHash).toBe(passwordHash)
    }
  })

  it('allows 5 attempts a minute per person', async () => {
    const { cookie } = await person()
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await call({ method: 'POST', url: '/api/account/password', cookie, payload: { currentPassword: `wrong-${i}`, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD } })).statusCode)
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429])
  })
})

describe('sessions', () => {
  it('lists the person’s sessions with browser and OS, when each began and was last seen, the current one marked', async () => {
    const { user, cookie, sessionId } = await person({ userAgent: CHROME_MAC })
    const phone = await sessionOf(user, SAFARI_IPHONE)
    clock.advance(1000)
    await sessionOf(user, '') // no user agent at all
    const other = await person()
    const response = await call({ method: 'GET', url: '/api/account/sessions', cookie })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    const { sessions: listed } = SessionsResponseSchema.parse(response.json())
    expect(listed).toHaveLength(3)
    expect(listed.map((session) => session.id)).not.toContain(other.sessionId)
    expect(listed.find((session) => session.id === sessionId)).toEqual({
      id: sessionId,
      browser: 'Chrome 131',
      os: 'macOS',
      device: 'desktop',
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
      current: true,
    })
    expect(listed.find((session) => session.id === phone.sessionId)).toMatchObject({ browser: 'Safari 17', os: 'iOS 17.5', device: 'mobile', current: false })
    expect(listed.find((session) => session.browser === null)).toMatchObject({ os: null, device: null, current: false })
  })

  it('updates "last seen" at most every 5 minutes, not on every request', async () => {
    const { cookie, sessionId } = await person()
    const lastSeen = async () => (await database.db.select().from(sessions).where(eq(sessions.id, sessionId)))[0]!.lastSeenAt.getTime()
    const first = await lastSeen()
    clock.advance(SESSION_SEEN_MS - 1000)
    await call({ method: 'GET', url: '/api/me', cookie })
    expect(await lastSeen()).toBe(first)
    clock.advance(1000)
    await call({ method: 'GET', url: '/api/me', cookie })
    expect(await lastSeen()).toBe(clock.now().getTime())
    const listed = SessionsResponseSchema.parse((await call({ method: 'GET', url: '/api/account/sessions', cookie })).json()).sessions
    expect(listed[0]!.lastSeenAt).toBe(clock.now().toISOString())
  })

  it('leaves out sessions that are idle past their limit but not yet cleaned up', async () => {
    const { user, cookie } = await person()
    const stale = await sessionOf(user)
    await database.db.update(sessions).set({ lastVerifiedAt: new Date(clock.now().getTime() - 8 * 24 * HOUR) }).where(eq(sessions.id, stale.sessionId))
    const listed = SessionsResponseSchema.parse((await call({ method: 'GET', url: '/api/account/sessions', cookie })).json()).sessions
    expect(listed.map((session) => session.id)).not.toContain(stale.sessionId)
  })

  it('signs out one session; another person cannot sign out the person’s session (404)', async () => {
    const a = await person()
    const aPhone = await sessionOf(a.user, SAFARI_IPHONE)
    const b = await person()
    const idor = await call({ method: 'DELETE', url: `/api/account/sessions/${aPhone.sessionId}`, cookie: b.cookie })
    expect(idor.statusCode).toBe(404)
    expect(errorOf(idor).code).toBe('NOT_FOUND')
    expect((await call({ method: 'GET', url: '/api/me', cookie: aPhone.cookie })).statusCode).toBe(200)

    const out = await call({ method: 'DELETE', url: `/api/account/sessions/${aPhone.sessionId}`, cookie: a.cookie })
    expect(out.statusCode).toBe(204)
    expect((await call({ method: 'GET', url: '/api/me', cookie: aPhone.cookie })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: a.cookie })).statusCode).toBe(200)
    expect((await call({ method: 'DELETE', url: `/api/account/sessions/${aPhone.sessionId}`, cookie: a.cookie })).statusCode).toBe(404)
  })

  it('signing out the current session signs this browser out', async () => {
    const { cookie, sessionId } = await person()
    const response = await call({ method: 'DELETE', url: `/api/account/sessions/${sessionId}`, cookie })
    expect(response.statusCode).toBe(204)
    expect(response.cookies.find((c) => c.name === 'session')?.value).toBe('')
    expect((await call({ method: 'GET', url: '/api/me', cookie })).statusCode).toBe(401)
  })

  it('refuses a malformed session id with a 400 naming it', async () => {
    const { cookie } = await person()
    const response = await call({ method: 'DELETE', url: '/api/account/sessions/NOT-AN-ID', cookie })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'id' })
  })

  it('signs out everywhere else: the person’s other sessions only', async () => {
    const a = await person()
    const others = [await sessionOf(a.user), await sessionOf(a.user, SAFARI_IPHONE)]
    const b = await person()
    const response = await call({ method: 'POST', url: '/api/account/sessions/sign-out-others', cookie: a.cookie })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ signedOut: 2 })
    for (const other of others) expect((await call({ method: 'GET', url: '/api/me', cookie: other.cookie })).statusCode).toBe(401)
    expect((await call({ method: 'GET', url: '/api/me', cookie: a.cookie })).statusCode).toBe(200)
    expect((await call({ method: 'GET', url: '/api/me', cookie: b.cookie })).statusCode).toBe(200)
    const listed = SessionsResponseSchema.parse((await call({ method: 'GET', url: '/api/account/sessions', cookie: a.cookie })).json()).sessions
    expect(listed.map((session) => session.current)).toEqual([true])
  })

  it('keeps the user agent a login was made with', async () => {
    const { user } = await person()
    const response = await call({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: PASSWORD }, headers: { 'user-agent': SAFARI_IPHONE } })
    const cookie = sessionCookieFrom(response)
    const listed = SessionsResponseSchema.parse((await call({ method: 'GET', url: '/api/account/sessions', cookie })).json()).sessions
    expect(listed.find((session) => session.current)).toMatchObject({ browser: 'Safari 17', os: 'iOS 17.5' })
  })
})

describe('in production without Twilio', () => {
  it('texts no code (the log never holds one there) and says so; the number stays as it is', async () => {
    const lines: string[] = []
    const production = await buildApp(testConfig({ NODE_ENV: 'production', PAYMENT_MODE: 'testing', SMTP_URL: smtp.url, LOG_LEVEL: 'info' }), {
      database,
      clock,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
    })
    try {
      const { user, cookie } = await person({ phoneNumber: '2025110099' })
      await database.db.delete(phoneProofs).where(eq(phoneProofs.userId, user.id))
      const inject = (url: string, payload?: Record<string, unknown>) =>
        production.inject({ method: 'POST', url, payload, remoteAddress: '127.0.0.1', headers: { origin: APP_ORIGIN, cookie, 'x-forwarded-for': newIp() } })
      for (const response of [await inject('/api/account/phone/verification'), await inject('/api/account/phone', { phoneNumber: '2025110098', currentPassword: PASSWORD })]) {
        expect(response.statusCode).toBe(503)
        expect(errorOf(response)).toMatchObject({ code: 'TEXT_NOT_SENT', message: 'Texts are not set up on this server, so we cannot text you a code.' })
      }
      expect((await userRow(user.id)).phoneNumber).toBe('2025110099')
      expect(lines.join('')).not.toMatch(/is your code/)
    } finally {
      await production.close()
    }
  })
})

describe('with Twilio configured', () => {
  let twilioDb: TestDatabase
  let twilio: FakeTwilio
  let texting: FastifyInstance

  beforeAll(async () => {
    twilioDb = await createTestDatabase()
    twilio = await FakeTwilio.start({ clock, numbers: ['+15555550123'] })
    texting = await buildTestApp({ database: twilioDb, clock, env: twilio.env('+15555550123') })
  })

  afterAll(async () => {
    await texting?.close()
    await twilio?.close()
    await twilioDb?.destroy()
  })

  const post = async (cookie: string, url: string, payload: Record<string, unknown>) =>
    texting.inject({ method: 'POST', url, payload, remoteAddress: '127.0.0.1', headers: { origin: APP_ORIGIN, cookie, 'x-forwarded-for': newIp() } })

  /** A member with a known password and a confirmed email, signed in. */
  const member = async (phoneNumber: string) => {
    const user = await insertUser(twilioDb.db, { phoneNumber, passwordHash, emailConfirmedAt: clock.now() })
    const session = await createSession(twilioDb.db, clock, user.id)
    return { user, cookie: `session=${session.token}` }
  }

  it('texts the code through Twilio to the new number, from our number', async () => {
    const { user, cookie } = await member('2025112222')
    const asked = await post(cookie, '/api/account/phone', { phoneNumber: '2025334444', currentPassword: PASSWORD })
    expect(asked.statusCode).toBe(202)
    expect(accountOf(asked).textsLive).toBe(true)
    const [text] = twilio.sentTo('+12025334444')
    expect(text).toMatchObject({ from: '+15555550123' })
    const code = /Momentum Coach: (\d{6}) is your code/.exec(text!.body)?.[1]
    expect(code).toBeDefined()
    expect((await post(cookie, '/api/account/phone/confirm', { code: code! })).statusCode).toBe(200)
    expect((await twilioDb.db.select().from(users).where(eq(users.id, user.id)))[0]!.phoneNumber).toBe('2025334444')
  })

  it('says so when Twilio refuses the number (409 naming it), and keeps nothing waiting', async () => {
    const { user, cookie } = await member('2025112223')
    // The number opted out at Twilio (a STOP our webhook never heard): Twilio refuses with 21610.
    twilio.block('+12025119004')
    const refused = await post(cookie, '/api/account/phone', { phoneNumber: '2025119004', currentPassword: PASSWORD })
    expect(refused.statusCode).toBe(409)
    expect(errorOf(refused)).toMatchObject({ code: 'PHONE_UNREACHABLE', field: 'phoneNumber' })
    expect(errorOf(refused).message).toMatch(/START/)
    expect(await twilioDb.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id))).toEqual([])
  })

  it('answers 503 when Twilio is busy (nothing sent)', async () => {
    const { cookie } = await member('2025112224')
    twilio.failNext(1)
    const busy = await post(cookie, '/api/account/phone', { phoneNumber: '2025334445', currentPassword: PASSWORD })
    expect(busy.statusCode).toBe(503)
    expect(errorOf(busy).code).toBe('TEXT_NOT_SENT')
  })
})
