/**
 * "Export my data" and "Delete my account" through the real app (PostgreSQL, Redis with BullMQ and
 * a worker, the SMTP sink, Stripe mode against the Stripe fake through the official SDK). Which
 * tables hold a person is read from the database's catalogue (information_schema), never a hand
 * list: the export must hold a row of each, and after a deletion no text, uuid, JSON or array
 * column of any table may still name the person.
 */
import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { Queue } from 'bullmq'
import { eq, getTableName } from 'drizzle-orm'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorBodySchema } from '#common/errors'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { inboundTexts, retainedBillingRecords, sessions, textMessages, users, type User } from '#server/db/schema'
import { createStripeClient } from '#server/integrations/stripe'
import { createBullmqEnqueuer, type RunningWorkers } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import type { Db } from '#server/db/client'
import { EXPORT_FILES, NOT_EXPORTED, partRows, PROCESSOR_DELETION_JOB, USER_DATA } from '#server/services/account-data'
import { checkoutUser } from '#server/services/billing'
import { localDateOf, PLACE_CALL_JOB, placeCallJobId } from '#server/services/calls'
import { SEND_TEXT_JOB, sendTextJobId } from '#server/services/texts'
import { setupStripe } from '../../scripts/stripe-setup'
import { startWorker } from '../../worker/worker'
import { startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { APP_ORIGIN, buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { countNaming, personColumns, placesHolding, SEEDED_TABLES, seedPersonData, type PersonColumn } from '../helpers/person-data'
import { createTestRedis, type TestRedis } from '../helpers/redis'
import { startSmtpSink } from '../helpers/smtp-sink'
import { manualTimers } from '../helpers/timers'
import { readZip } from '../helpers/zip'

const PASSWORD = 'quiet-harbor-lantern-81'
const MINUTE = 60_000

let database: TestDatabase
let redis: TestRedis
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let stripe: FakeStripe
let app: FastifyInstance
let workerConnection: Redis
let worker: RunningWorkers
const clock = fakeClock(new Date('2026-11-21T12:00:00Z'))
const bullmqPrefix = () => `${redis.prefix}bull`
let passwordHash: string

let ipCounter = 0
const newIp = () => `10.7.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`
let phoneCounter = 0

type Person = { user: User; cookie: string; marker: string }

async function request(target: FastifyInstance, options: InjectOptions & { cookie?: string }) {
  const { cookie, ...rest } = options
  return target.inject({
    ...rest,
    remoteAddress: '127.0.0.1',
    headers: { origin: APP_ORIGIN, 'x-forwarded-for': newIp(), ...(cookie ? { cookie } : {}), ...(rest.headers ?? {}) },
  })
}

const exportOf = (person: { cookie: string }, target = app) => request(target, { method: 'POST', url: '/api/account/export', cookie: person.cookie })
const deleteOf = (person: { cookie: string }, payload: unknown) => request(app, { method: 'POST', url: '/api/account/delete', cookie: person.cookie, payload: payload as InjectOptions['payload'] })

/** A person with a password, a confirmed email, a session, and a row in every table that can hold them. */
async function person(options: { seed?: boolean } = {}): Promise<Person> {
  const marker = randomBytes(6).toString('hex')
  const user = await insertUser(app.db, { phoneNumber: `555${String(7_000_000 + ++phoneCounter).padStart(7, '0')}`, passwordHash, emailConfirmedAt: clock.now() })
  if (options.seed !== false) await seedPersonData({ db: app.db, clock, user, marker })
  // Verified for two-factor sign-in: the seeded data turns it on for the person (docs/decisions/072).
  const session = await createSession(app.db, clock, user.id, { twoFactorVerified: true })
  return { user, cookie: `session=${session.token}`, marker }
}

/** A premium subscription through Stripe: the embedded checkout, completed in the fake, its events processed. */
async function subscribe(user: User): Promise<string> {
  const { session_id: sessionId } = await app.services.billing.createEmbeddedCheckout(checkoutUser(user), 'premium', undefined)
  for (const event of stripe.completeCheckout(sessionId)) await app.services.billing.handleEvent(event)
  const subscriptionId = stripe.sessions.get(sessionId)!.subscription as string
  expect(subscriptionId).toMatch(/^sub_/)
  return subscriptionId
}

const tableOf = (part: (typeof USER_DATA)[number]) => getTableName(part.table)

/** 450 texts with the same instant: the export's pages (200 rows) turn on the id after the time. */
async function manyTexts(db: Db, userId: string): Promise<void> {
  const now = clock.now()
  await db.insert(textMessages).values(
    Array.from({ length: 450 }, (_, index) => ({ userId, kind: 'recap' as const, dedupeKey: `bulk:${userId}:${index}`, content: `text ${index}`, status: 'logged' as const, createdAt: now, updatedAt: now })),
  )
}

beforeAll(async () => {
  database = await createTestDatabase()
  redis = await createTestRedis()
  smtp = await startSmtpSink()
  stripe = await startFakeStripe({ now: () => Math.floor(clock.now().getTime() / 1000) })
  await setupStripe(createStripeClient({ secretKey: stripe.secretKey, apiUrl: stripe.url }))
  app = await buildTestApp({ database, redis: redis.redis, redisPrefix: redis.prefix, bullmqPrefix: bullmqPrefix(), clock, env: { SMTP_URL: smtp.url, ...stripeEnv(stripe) } })
  workerConnection = new Redis(redis.url, { maxRetriesPerRequest: null })
  worker = await startWorker({ services: app.services, connection: workerConnection, log: pino({ level: 'silent' }), prefix: bullmqPrefix() })
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await worker?.close()
  await workerConnection?.quit()
  await app?.close()
  await smtp?.close()
  await stripe?.close()
  await redis?.destroy()
  await database?.destroy()
})

describe('the tables that hold a person (information_schema)', () => {
  it('each has a seeder here and a place in the export and the deletion (tables.ts)', async () => {
    const tables = [...new Set((await personColumns(app.db)).map((column) => column.table))]
    // The catalogue finds the known ones (a sanity check of the query itself).
    expect(tables).toEqual(expect.arrayContaining(['users', 'profiles', 'sessions', 'coaching_calls', 'consent_events', 'account_data_exports']))
    const registered = new Set(USER_DATA.map(tableOf))
    for (const table of tables) {
      expect(SEEDED_TABLES.has(table), `no seeder in test/helpers/person-data.ts writes ${table}`).toBe(true)
      expect(registered.has(table), `${table} holds a person but is not in server/services/account-data/tables.ts`).toBe(true)
    }
    // The retained billing records name no one: they must never be linked back.
    expect(tables).not.toContain('retained_billing_records')
  })
})

describe('POST /api/account/export', () => {
  it('needs a session (401) and the same origin (403)', async () => {
    const alice = await person({ seed: false })
    const anonymous = await request(app, { method: 'POST', url: '/api/account/export' })
    expect(anonymous.statusCode).toBe(401)
    expect(ErrorBodySchema.parse(anonymous.json()).error.code).toBe('UNAUTHENTICATED')
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const cross = await request(app, { method: 'POST', url: '/api/account/export', cookie: alice.cookie, headers })
      expect(cross.statusCode).toBe(403)
      expect(ErrorBodySchema.parse(cross.json()).error.code).toBe('FORBIDDEN')
    }
    // A GET is no export (the route is a POST).
    expect((await request(app, { method: 'GET', url: '/api/account/export', cookie: alice.cookie })).statusCode).toBe(404)
  })

  it('is a ZIP with a README and a JSON file per area holding a row of every table that names the person, only theirs, and no secret', async () => {
    const alice = await person()
    const bob = await person()
    const response = await exportOf(alice)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['content-type']).toBe('application/zip')
    expect(response.headers['content-disposition']).toBe('attachment; filename="momentum-coach-data-2026-11-21.zip"')
    expect(response.headers['cache-control']).toBe('no-store')

    const files = await readZip(response.rawPayload)
    expect([...files.keys()].sort()).toEqual(['README.md', ...EXPORT_FILES.map((file) => file.name)].sort())
    const readme = files.get('README.md')!
    for (const file of EXPORT_FILES) {
      expect(readme).toContain(`## ${file.name}`)
      for (const part of file.parts) expect(readme).toContain(`\`${part.key}\``)
    }
    const json = new Map(EXPORT_FILES.map((file) => [file.name, JSON.parse(files.get(file.name)!) as Record<string, Array<Record<string, unknown>>>]))

    // Every column the catalogue says names a person: the export holds as many of the person's
    // rows of that table as the database does (at least the seeded one), each naming the person.
    const columns = await personColumns(app.db)
    const keptOut = new Set(NOT_EXPORTED.map(tableOf))
    for (const column of columns) {
      const stored = await countNaming(app.db, column, alice.user)
      expect(stored, `${column.table}.${column.column} has no seeded row`).toBeGreaterThan(0)
      // Kept out of the export on purpose (tables.ts says why, and so does the README).
      if (keptOut.has(column.table)) continue
      const parts = EXPORT_FILES.flatMap((file) => file.parts.filter((part) => tableOf(part) === column.table).map((part) => json.get(file.name)![part.key]!))
      const records = parts.flat()
      expect(records.length, `${column.table} in the export`).toBe(stored)
      const value = column.holds === 'id' ? alice.user.id : alice.user.email
      for (const record of records) if (column.column in record) expect(record[column.column], `${column.table}.${column.column}`).toBe(value)
    }

    const everything = [...files.values()].join('\n')
    // What was seeded is there, in words.
    for (const words of ['call summary', 'transcript', 'commitment', 'message', 'goal notes', 'recap', 'hello', 'timeline', 'remembered fact', 'remembered correction', 'remembered episode']) expect(everything).toContain(`${words} ${alice.marker}`)
    // A coach's private notes are not the member's to read.
    expect(everything).not.toContain(`coach note ${alice.marker}`)
    for (const part of NOT_EXPORTED) expect(readme).toContain(part.why)
    expect(json.get('courses.json')!.enrollments![0]).toHaveProperty('course_title')
    // A coach's photo goes out as text a JSON file holds: the image as a data: URL.
    expect(json.get('coach.json')!.coachPhoto![0]!.image).toMatch(/^data:image\/webp;base64,[A-Za-z0-9+/]+=*$/)
    // Nobody else's rows (the catalogue's columns all filtered by the person), and no secret.
    expect(everything).not.toContain(bob.user.id)
    expect(everything).not.toContain(bob.user.email)
    expect(everything).not.toContain(bob.marker)
    expect(everything).not.toContain(passwordHash)
    expect(everything).not.toContain(alice.cookie.split('=')[1]!.split('.')[1]!)
    expect(everything).not.toMatch(/"(password_hash|secret_hash|token_hash|unsubscribe_token_hash|payload|previous_chat_id|secret|code_hash)"/)
    const seeded = json.get('sessions.json')!.sessions!.find((row) => row.user_agent === 'Mozilla/5.0 (seeded)')
    expect(seeded).toMatchObject({ ip: '203.0.113.9', user_id: alice.user.id })
    expect(seeded).not.toHaveProperty('id')
  })

  it('pages through many rows without repeating or losing one', async () => {
    const carol = await person({ seed: false })
    await manyTexts(app.db, carol.user.id)
    const files = await readZip((await exportOf(carol)).rawPayload)
    const sent = (JSON.parse(files.get('texts.json')!) as { sent: Array<{ id: string; content: string }> }).sent
    expect(sent).toHaveLength(450)
    expect(new Set(sent.map((text) => text.id)).size).toBe(450)
  })

  it('pages the same on PGlite (the embedded default)', async () => {
    const lite = await createTestDatabase('pglite')
    try {
      const user = await insertUser(lite.db)
      await manyTexts(lite.db, user.id)
      const rows: Array<Record<string, unknown>> = []
      for await (const row of partRows(lite.db, USER_DATA.find((part) => tableOf(part) === 'text_messages')!, user.id)) rows.push(row)
      expect(rows).toHaveLength(450)
      expect(new Set(rows.map((row) => row.id)).size).toBe(450)
    } finally {
      await lite.destroy()
    }
  })

  it('a download cut short stops the archive, and the server carries on', async () => {
    const kim = await person({ seed: false })
    await manyTexts(app.db, kim.user.id)
    const listening = await buildTestApp({ database, clock, timers: manualTimers(clock).timers, env: stripeEnv(stripe) })
    try {
      const address = new URL(await listening.listen({ port: 0, host: '127.0.0.1' }))
      // The browser goes away after the first bytes: its socket is destroyed.
      const firstBytes = await new Promise<number>((resolve, reject) => {
        const cut = httpRequest({ host: address.hostname, port: address.port, method: 'POST', path: '/api/account/export', headers: { origin: APP_ORIGIN, cookie: kim.cookie } }, (response) => {
          response.once('data', (chunk: Buffer) => {
            cut.destroy()
            resolve(chunk.byteLength)
          })
        })
        cut.on('error', (error) => (cut.destroyed ? undefined : reject(error)))
        cut.end()
      })
      expect(firstBytes).toBeGreaterThan(0)
      const health = await fetch(new URL('/api/health', address))
      expect(health.status).toBe(200)
      await health.arrayBuffer()
    } finally {
      await listening.close()
    }
  })

  it('at most once in 10 minutes per person, on every server (429 with Retry-After), then again', async () => {
    const dana = await person({ seed: false })
    const erin = await person({ seed: false })
    expect((await exportOf(dana)).statusCode).toBe(200)
    // A second server on the same database, with no Redis (its limits in memory): still refused.
    const other = await buildTestApp({ database, clock, timers: manualTimers(clock).timers, env: stripeEnv(stripe) })
    try {
      clock.advance(4 * MINUTE)
      const again = await exportOf(dana, other)
      expect(again.statusCode).toBe(429)
      expect(again.headers['retry-after']).toBe('360')
      const { error } = ErrorBodySchema.parse(again.json())
      expect(error).toMatchObject({ code: 'RATE_LIMITED', message: 'You can export your data once every 10 minutes. Please try again in 6 minutes.' })
      // Another person is not held back.
      expect((await exportOf(erin, other)).statusCode).toBe(200)
      clock.advance(6 * MINUTE)
      expect((await exportOf(dana, other)).statusCode).toBe(200)
      expect((await exportOf(dana)).statusCode).toBe(429)
    } finally {
      await other.close()
    }
  })
})

describe('POST /api/account/delete', () => {
  it('needs a session (401) and the same origin (403); a wrong or missing field is refused naming it, and nothing is deleted', async () => {
    const frank = await person({ seed: false })
    const good = { password: PASSWORD, email: frank.user.email }
    expect((await request(app, { method: 'POST', url: '/api/account/delete', payload: good })).statusCode).toBe(401)
    const cross = await request(app, { method: 'POST', url: '/api/account/delete', cookie: frank.cookie, payload: good, headers: { origin: 'https://evil.example' } })
    expect(cross.statusCode).toBe(403)
    const cases: Array<[unknown, number, string, string]> = [
      [{ email: frank.user.email }, 400, 'VALIDATION_FAILED', 'password'],
      [{ password: PASSWORD }, 400, 'VALIDATION_FAILED', 'email'],
      [{ password: PASSWORD, email: 'someone-else@example.com' }, 400, 'VALIDATION_FAILED', 'email'],
      [{ password: PASSWORD, email: frank.user.email, confirm: true }, 400, 'VALIDATION_FAILED', ''],
      [{ password: 'not-the-password', email: frank.user.email }, 401, 'INVALID_CREDENTIALS', 'password'],
    ]
    for (const [payload, status, code, field] of cases) {
      const response = await deleteOf(frank, payload)
      expect(response.statusCode, JSON.stringify(payload)).toBe(status)
      const { error } = ErrorBodySchema.parse(response.json())
      expect(error.code).toBe(code)
      if (field) expect(error.field).toBe(field)
    }
    expect(await app.db.select({ id: users.id }).from(users).where(eq(users.id, frank.user.id))).toHaveLength(1)
    expect((await request(app, { method: 'GET', url: '/api/me', cookie: frank.cookie })).statusCode).toBe(200)
  })

  it('cancels the Stripe subscription at once, detaches the saved card, removes the waiting jobs, deletes every row naming the person, keeps the billing record without them, ends every session, emails them, and leaves another person alone', async () => {
    const grace = await person({ seed: false })
    const subscriptionId = await subscribe(grace.user)
    const customer = stripe.subscriptions.get(subscriptionId)!.customer as string
    expect(stripe.paymentMethodsOf(customer)).toHaveLength(1) // the card she paid with
    await seedPersonData({ db: app.db, clock, user: grace.user, marker: grace.marker })
    const secondSession = `session=${(await createSession(app.db, clock, grace.user.id, { twoFactorVerified: true })).token}`
    const henry = await person()
    const henryColumns: Array<[PersonColumn, number]> = []
    for (const column of await personColumns(app.db)) henryColumns.push([column, await countNaming(app.db, column, henry.user)])

    // Jobs waiting for Grace in BullMQ: the call the tick enqueued for her, a text about to go.
    const enqueuer = createBullmqEnqueuer({ jobs: JOBS, connection: redis.redis, prefix: bullmqPrefix() })
    const callJob = placeCallJobId({ userId: grace.user.id, slot: 'daily', localDate: localDateOf(clock.now(), 'America/New_York'), attempt: 0 })
    await enqueuer.enqueue(PLACE_CALL_JOB, { userId: grace.user.id, slot: 'daily', localDate: localDateOf(clock.now(), 'America/New_York'), attempt: 0, dueAt: new Date(clock.now().getTime() + 3_600_000).toISOString() }, { jobId: callJob, delayMs: 3_600_000 })
    const [text] = await app.db.select({ id: textMessages.id, sid: textMessages.providerSid }).from(textMessages).where(eq(textMessages.userId, grace.user.id))
    const [inbound] = await app.db.select({ sid: inboundTexts.messageSid }).from(inboundTexts).where(eq(inboundTexts.fromNumber, `+1${grace.user.phoneNumber}`))
    await enqueuer.enqueue(SEND_TEXT_JOB, { id: text!.id }, { jobId: sendTextJobId(text!.id), delayMs: 3_600_000 })
    const queueOf = (name: string) => new Queue(JOBS.find((job) => job.name === name)!.queue, { connection: redis.redis, prefix: bullmqPrefix() })
    const callsQueue = queueOf(PLACE_CALL_JOB)
    const textsQueue = queueOf(SEND_TEXT_JOB)
    expect(await callsQueue.getJob(callJob)).toBeDefined()

    // The email typed as people type it: spaces and capitals.
    const response = await deleteOf(grace, { password: PASSWORD, email: `  ${grace.user.email.toUpperCase()} ` })
    expect(response.statusCode, response.body).toBe(204)
    expect(response.cookies.find((cookie) => cookie.name === 'session')).toMatchObject({ value: '' })

    // Nothing anywhere names her: every text, uuid, JSON and array column of every table.
    expect(await placesHolding(app.db, [grace.user.id, grace.user.email])).toEqual([])
    expect(await app.db.select().from(sessions).where(eq(sessions.userId, grace.user.id))).toEqual([])
    for (const cookie of [grace.cookie, secondSession]) expect((await request(app, { method: 'GET', url: '/api/me', cookie })).statusCode).toBe(401)
    // Henry's rows are all there.
    for (const [column, count] of henryColumns) expect(await countNaming(app.db, column, henry.user), `${column.table}.${column.column}`).toBe(count)

    // Stripe: cancelled at once (not at the period's end), through the API.
    expect(stripe.subscriptions.get(subscriptionId)!.status).toBe('canceled')
    expect(stripe.requestsTo(`/v1/subscriptions/${subscriptionId}`, 'DELETE')).toHaveLength(1)
    // Her card is no longer saved with the customer (its invoices stay, in Stripe).
    expect(stripe.paymentMethodsOf(customer)).toEqual([])
    // What billing law keeps: the Stripe references, detached from her, for ten years.
    const retained = await app.db.select().from(retainedBillingRecords).where(eq(retainedBillingRecords.stripeSubscriptionId, subscriptionId))
    expect(retained).toEqual([
      expect.objectContaining({ kind: 'subscription', item: 'plan:premium', status: 'canceled', accountDeletedAt: clock.now(), retainUntil: new Date(new Date(clock.now()).setUTCFullYear(clock.now().getUTCFullYear() + 10)) }),
    ])

    // What the processors hold of her is left to a job with their ids only: never a name, number or body.
    const processorsQueue = queueOf(PROCESSOR_DELETION_JOB)
    const runs = (await processorsQueue.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed'])).filter((run) => run.name === PROCESSOR_DELETION_JOB && JSON.stringify(run.data).includes(grace.marker))
    await processorsQueue.close()
    expect(runs).toHaveLength(1)
    const ids = runs[0]!.data as { twilioMessages: string[] }
    expect({ ...ids, twilioMessages: [...ids.twilioMessages].sort() }).toEqual({ vapiCalls: [`vapi-${grace.marker}`], vapiChatChains: [`chat-${grace.marker}`], vapiChats: [], twilioMessages: [text!.sid, inbound!.sid].sort() })
    for (const personal of [grace.user.email, grace.user.fullName, grace.user.phoneNumber, `recap ${grace.marker}`, `hello ${grace.marker}`]) expect(JSON.stringify(ids)).not.toContain(personal)

    // The jobs that were waiting for her are gone from the queues.
    expect(await callsQueue.getJob(callJob)).toBeUndefined()
    expect(await textsQueue.getJob(sendTextJobId(text!.id))).toBeUndefined()
    await Promise.all([callsQueue.close(), textsQueue.close(), enqueuer.close()])

    // The last email (sent by the worker).
    const mail = await smtp.waitForMail(grace.user.email, /^Your Momentum Coach account has been deleted$/)
    expect(mail.text).toContain('any card saved for it removed')
    expect(mail.text).toContain('no further payment will be taken')
    // What the processors keep, and for how long.
    expect(mail.text).toContain('Stripe, our payment processor, keeps your invoices and your customer record')
    expect(mail.text).toContain('for 10 years')
    expect(mail.text).toContain('Vapi, which runs our calls and the assistant, has been asked to delete your calls and chats')
    expect(mail.text).toContain('Twilio, which carries our texts, has been asked to erase the words of the texts between you and us')
    expect(mail.text).toContain('up to 30 days at Twilio')

    // The email can sign up again at once.
    const signup = await request(app, {
      method: 'POST',
      url: '/api/auth/signup',
      payload: { fullName: 'Grace Again', email: grace.user.email, phoneNumber: '2025001234', password: PASSWORD, confirmPassword: PASSWORD, communicationConsent: true, termsAccepted: true },
    })
    expect(signup.statusCode, signup.body).toBe(201)
  })

  it('expires the person’s open Checkout sessions, so a checkout left open in a tab cannot charge a deleted account; another person’s stays open', async () => {
    const kim = await person({ seed: false })
    const { session_id: kimCheckout } = await app.services.billing.createEmbeddedCheckout(checkoutUser(kim.user), 'premium', undefined)
    const leo = await person({ seed: false })
    const { session_id: leoCheckout } = await app.services.billing.createEmbeddedCheckout(checkoutUser(leo.user), 'basic', undefined)

    expect((await deleteOf(kim, { password: PASSWORD, email: kim.user.email })).statusCode).toBe(204)

    expect(stripe.sessions.get(kimCheckout)!.status).toBe('expired')
    expect(stripe.requestsTo(`/v1/checkout/sessions/${kimCheckout}/expire`, 'POST')).toHaveLength(1)
    expect(() => stripe.completeCheckout(kimCheckout)).toThrow(/is expired/)
    expect(stripe.sessions.get(leoCheckout)!.status).toBe('open')
    expect(stripe.requestsTo(`/v1/checkout/sessions/${leoCheckout}/expire`, 'POST')).toHaveLength(0)
  })

  it('a checkout completed while the account is being deleted: the subscription it started is cancelled too', async () => {
    const mia = await person({ seed: false })
    const { session_id: checkout } = await app.services.billing.createEmbeddedCheckout(checkoutUser(mia.user), 'premium', undefined)
    // The list of open sessions is answered with Mia's still open; she pays before it reaches us.
    const listed = stripe.hold('GET', /^\/v1\/checkout\/sessions$/)
    const deleting = deleteOf(mia, { password: PASSWORD, email: mia.user.email })
    await listed.arrived
    stripe.completeCheckout(checkout)
    listed.release()

    expect((await deleting).statusCode).toBe(204)
    expect(stripe.requestsTo(`/v1/checkout/sessions/${checkout}/expire`, 'POST')).toHaveLength(1)
    const subscriptionId = stripe.sessions.get(checkout)!.subscription as string
    expect(subscriptionId).toMatch(/^sub_/)
    expect(stripe.subscriptions.get(subscriptionId)!.status).toBe('canceled')
    // Our record never knew it (its webhook had not come): billing law's copy is kept all the same.
    expect(await app.db.select().from(retainedBillingRecords).where(eq(retainedBillingRecords.stripeSubscriptionId, subscriptionId))).toEqual([
      expect.objectContaining({ kind: 'subscription', item: 'plan:premium', status: 'canceled', stripeCustomerId: stripe.sessions.get(checkout)!.customer }),
    ])
  })

  it('deletes nothing when Stripe cannot cancel the subscription (the person can try again)', async () => {
    const ivan = await person({ seed: false })
    await subscribe(ivan.user)
    stripe.failNextRequests(1)
    const response = await deleteOf(ivan, { password: PASSWORD, email: ivan.user.email })
    expect(response.statusCode).toBe(502)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('PAYMENT_PROVIDER_ERROR')
    expect(await app.db.select({ id: users.id }).from(users).where(eq(users.id, ivan.user.id))).toHaveLength(1)
    expect((await request(app, { method: 'GET', url: '/api/me', cookie: ivan.cookie })).statusCode).toBe(200)
    expect((await deleteOf(ivan, { password: PASSWORD, email: ivan.user.email })).statusCode).toBe(204)
  })

  it('a wrong password counts like a failed login: the attempts are limited', async () => {
    const judy = await person({ seed: false })
    const statuses: number[] = []
    for (let attempt = 0; attempt < 7; attempt++) statuses.push((await deleteOf(judy, { password: `wrong-${attempt}`, email: judy.user.email })).statusCode)
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(statuses.slice(5)).toContain(429)
    expect(await app.db.select({ id: users.id }).from(users).where(eq(users.id, judy.user.id))).toHaveLength(1)
  })
})
