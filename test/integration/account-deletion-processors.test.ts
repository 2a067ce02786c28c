/**
 * Deleting an account reaches the processors (issue 31, item 7; docs/decisions/064): after the
 * commit a job deletes the person's calls at Vapi (completed ones too) and every chat of their
 * conversations, and redacts at Twilio the bodies of the texts we sent them and of the texts they
 * sent us. Through the real deletion route, on the embedded runner and a test clock, with the
 * official SDKs talking to the Vapi and Twilio fakes. A provider that fails is asked again on the
 * job's next try for what failed only; a text still on its way is redacted on a later try, and
 * after the last try the job gives up.
 */
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { coachingCalls, inboundTexts, users, type User } from '#server/db/schema'
import { PROCESSOR_DELETION_ATTEMPTS, PROCESSOR_DELETION_BACKOFF_MS } from '#server/services/account-data'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'

const at = (iso: string) => new Date(iso)
const PASSWORD = 'amber-canyon-lighthouse-7'

let database: TestDatabase
let port: number
let h: Harness
let passwordHash: string

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  // Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT): inside the texts' window.
  h = await startTextsHarness(database, { start: at('2026-06-15T13:50:00Z'), port })
})

afterEach(async () => {
  await h.close()
})

async function sessionHeaders(user: User) {
  const session = await createSession(database.db, h.clock, user.id)
  return { origin: h.app.config.appOrigin, cookie: `session=${session.token}` }
}

/** Deletes the person's account through the API, as the account page does. */
async function deleteAccount(user: User): Promise<void> {
  await database.db.update(users).set({ passwordHash }).where(eq(users.id, user.id))
  const response = await h.app.inject({ method: 'POST', url: '/api/account/delete', remoteAddress: '127.0.0.1', headers: await sessionHeaders(user), payload: { password: PASSWORD, email: user.email } })
  expect(response.statusCode, response.body).toBe(204)
}

/** A conversation with the assistant of `turns` messages: Vapi chains one chat per turn. */
async function converse(user: User, turns: string[]): Promise<void> {
  const headers = await sessionHeaders(user)
  const created = await h.app.inject({ method: 'POST', url: '/api/conversations', remoteAddress: '127.0.0.1', headers, payload: {} })
  expect(created.statusCode, created.body).toBe(201)
  const { id } = created.json<{ id: string }>()
  for (const text of turns) {
    const sent = await h.app.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, remoteAddress: '127.0.0.1', headers, payload: { text } })
    expect(sent.statusCode, sent.body).toBe(201)
  }
}

/** A text through the app's outbox, sent to the Twilio fake; its sid there. */
async function textTo(user: User, phone: string, content: string): Promise<string> {
  const before = h.twilio.sentTo(phone).length
  await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `weekly_report:${user.id}:${content}`, content })
  await h.settle()
  const sent = h.twilio.sentTo(phone)
  expect(sent).toHaveLength(before + 1)
  return sent.at(-1)!.sid
}

/** A text from the person's phone to our number, through Twilio's signed webhook; its sid. */
async function textFrom(phone: string, body: string): Promise<string> {
  const delivery = await h.twilio.inbound({ from: phone, body })
  expect(delivery.status).toBe(200)
  return delivery.messageSid
}

const bodyAtTwilio = (sid: string) => h.twilio.messages().find((message) => message.sid === sid)?.body
const vapiRequests = (method: string, path: string) => h.vapi.requestsTo(method, path).length
const after = (ms: number) => new Date(h.clock.now().getTime() + ms)

/** People whose daily call at 9:52 AM was answered and reported, each with a two-turn conversation (two chained chats). */
async function withCallsAndChats(count: number) {
  const people = []
  for (let index = 0; index < count; index++) people.push(await h.person({ time: '09:52' }))
  await h.advanceTo(at('2026-06-15T13:57:00Z'))
  const out = []
  for (const person of people) {
    const [call] = await database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, person.user.id))
    expect(call).toMatchObject({ completionStatus: 'completed' })
    expect(h.vapi.calls.get(call!.vapiCallId!)?.status).toBe('ended')
    const chatsBefore = new Set(h.vapi.chats.keys())
    await converse(person.user, ['I ran 5k this morning', 'and I slept eight hours'])
    const chats = [...h.vapi.chats.keys()].filter((id) => !chatsBefore.has(id))
    expect(chats).toHaveLength(2)
    out.push({ ...person, vapiCallId: call!.vapiCallId!, chats })
  }
  return out
}

describe('deleting an account reaches the processors', () => {
  it("deletes the person's calls at Vapi, completed ones too, and every chat of their conversations; another person's stay", async () => {
    const people = await withCallsAndChats(2)
    const ada = people[0]!
    const bob = people[1]!

    await deleteAccount(ada.user)
    await h.settle()

    expect(h.vapi.calls.isDeleted(ada.vapiCallId)).toBe(true)
    for (const chat of ada.chats) expect(h.vapi.deletedChats.has(chat), chat).toBe(true)
    // Each once.
    expect(vapiRequests('DELETE', `/call/${ada.vapiCallId}`)).toBe(1)
    for (const chat of ada.chats) expect(vapiRequests('DELETE', `/chat/${chat}`)).toBe(1)
    // Bob's are where they were.
    expect(h.vapi.calls.isDeleted(bob.vapiCallId)).toBe(false)
    for (const chat of bob.chats) expect(h.vapi.chats.has(chat)).toBe(true)
  })

  it('redacts at Twilio the bodies of the texts we sent them and of the texts they sent us; the record stays, and another person’s texts are untouched', async () => {
    const ada = await h.person()
    const bob = await h.person()
    const toAda = await textTo(ada.user, ada.phone, 'Your weekly report is ready')
    await h.twilio.status(toAda, 'delivered')
    const fromAda = await textFrom(ada.phone, 'Had a good run today')
    const toBob = await textTo(bob.user, bob.phone, 'Your weekly report is ready, Bob')
    await h.twilio.status(toBob, 'delivered')
    const fromBob = await textFrom(bob.phone, 'Thanks coach')
    const bobsBody = bodyAtTwilio(toBob)
    expect(bobsBody).toContain('Your weekly report is ready, Bob')

    await deleteAccount(ada.user)
    await h.settle()

    expect(bodyAtTwilio(toAda)).toBe('')
    expect(bodyAtTwilio(fromAda)).toBe('')
    expect(h.twilio.updatesOf(toAda)).toBe(1)
    expect(h.twilio.updatesOf(fromAda)).toBe(1)
    // Redacted, not deleted: Twilio keeps the record (numbers, times, status).
    expect(h.twilio.messages().find((message) => message.sid === fromAda)).toMatchObject({ from: ada.phone, status: 'received' })
    expect(bodyAtTwilio(toBob)).toBe(bobsBody)
    expect(bodyAtTwilio(fromBob)).toBe('Thanks coach')
    // Bob's inbound text is still ours too.
    expect(await database.db.select({ sid: inboundTexts.messageSid }).from(inboundTexts).where(eq(inboundTexts.messageSid, fromBob))).toHaveLength(1)
  })

  it('a provider that fails is asked again on the next try, for what failed only', async () => {
    const ada = (await withCallsAndChats(1))[0]!
    const toAda = h.twilio.sentTo(ada.phone)[0]!.sid // the call's recap
    await h.twilio.status(toAda, 'delivered')
    const fromAda = await textFrom(ada.phone, 'Call me later please')
    h.vapi.inject('DELETE /chat', { kind: 'status', status: 503 })
    h.twilio.failNext(1, { status: 500, code: 20500, message: 'Internal Server Error' }, { method: 'POST', path: h.twilio.messagePath(fromAda) })

    await deleteAccount(ada.user)
    await h.settle()
    // The first try: the call, one chat and the recap are done; one chat and the inbound text are left.
    expect(h.vapi.calls.isDeleted(ada.vapiCallId)).toBe(true)
    expect(ada.chats.filter((chat) => h.vapi.deletedChats.has(chat))).toHaveLength(1)
    expect(bodyAtTwilio(toAda)).toBe('')
    expect(bodyAtTwilio(fromAda)).toBe('Call me later please')

    await h.advanceTo(after(PROCESSOR_DELETION_BACKOFF_MS))
    for (const chat of ada.chats) expect(h.vapi.deletedChats.has(chat)).toBe(true)
    expect(bodyAtTwilio(fromAda)).toBe('')
    // What the first try did was not asked again.
    expect(vapiRequests('GET', `/call/${ada.vapiCallId}`)).toBe(1)
    expect(vapiRequests('DELETE', `/call/${ada.vapiCallId}`)).toBe(1)
    expect(ada.chats.map((chat) => vapiRequests('DELETE', `/chat/${chat}`)).sort()).toEqual([1, 2])
    expect(h.twilio.updatesOf(toAda)).toBe(1)
    expect(h.twilio.updatesOf(fromAda)).toBe(2)
    // Nothing more comes.
    await h.advanceTo(after(60 * PROCESSOR_DELETION_BACKOFF_MS))
    expect(h.twilio.updatesOf(fromAda)).toBe(2)
  })

  it('a text still on its way at Twilio is redacted on a later try, once it has arrived', async () => {
    const ada = await h.person()
    const toAda = await textTo(ada.user, ada.phone, 'Your weekly report is ready')
    expect(h.twilio.messages().find((message) => message.sid === toAda)?.status).toBe('queued')
    const body = bodyAtTwilio(toAda)

    await deleteAccount(ada.user)
    await h.settle()
    expect(h.twilio.updatesOf(toAda)).toBe(1)
    expect(bodyAtTwilio(toAda)).toBe(body)

    // Still queued at the second try (a minute later); delivered before the third (two minutes after that).
    await h.advanceTo(after(PROCESSOR_DELETION_BACKOFF_MS))
    expect(h.twilio.updatesOf(toAda)).toBe(2)
    h.twilio.setStatus(toAda, 'delivered')
    await h.advanceTo(after(2 * PROCESSOR_DELETION_BACKOFF_MS))
    expect(h.twilio.updatesOf(toAda)).toBe(3)
    expect(bodyAtTwilio(toAda)).toBe('')
  })

  it('gives up after its last try on a text that never leaves Twilio’s queue', async () => {
    const ada = await h.person()
    const toAda = await textTo(ada.user, ada.phone, 'Your weekly report is ready')
    const body = bodyAtTwilio(toAda)

    await deleteAccount(ada.user)
    await h.settle()
    // Each try waits twice as long as the one before.
    for (let attempt = 1; attempt < PROCESSOR_DELETION_ATTEMPTS; attempt++) await h.jumpTo(after(PROCESSOR_DELETION_BACKOFF_MS * 2 ** (attempt - 1)))
    expect(h.twilio.updatesOf(toAda)).toBe(PROCESSOR_DELETION_ATTEMPTS)
    await h.jumpTo(after(2 * 86_400_000))
    expect(h.twilio.updatesOf(toAda)).toBe(PROCESSOR_DELETION_ATTEMPTS)
    expect(bodyAtTwilio(toAda)).toContain('Your weekly report is ready')
    expect(bodyAtTwilio(toAda)).toBe(body)
  })
})
