import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { VapiClient, VapiError, type Vapi } from '@vapi-ai/server-sdk'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  CHAT_ERRORS,
  ChatStreamEventSchema,
  ConversationListResponseSchema,
  ConversationSchema,
  ConversationSummarySchema,
  CONVERSATION_MESSAGES_MAX,
  CONVERSATION_TEXT_BYTES_MAX,
  CONVERSATIONS_PER_USER_MAX,
  MESSAGE_PAGE_MAX,
  MESSAGE_PAGE_SIZE,
  STORED_MESSAGE_MAX,
  USER_MESSAGE_MAX,
  SendMessageResponseSchema,
  TEXT_REPLY_TIMEOUT_MS,
  FALLBACK_REPLY_DELAY_MS,
  type ChatMessage,
  type ChatStreamEvent,
  type Conversation,
} from '#common/chat'
import { parseSse } from '#common/sse'
import { ErrorBodySchema } from '#common/errors'
import { conversations, goals } from '#server/db/schema'
import { loadCoachContext } from '#server/services/chat'
import { FakeVapi } from '../fakes/vapi'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let fake: FakeVapi
/** The app with Vapi configured (pointing at the fake). */
let app: FastifyInstance
/** The app without Vapi: the fallback coach answers. */
let fallbackApp: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  fake = await FakeVapi.start()
  app = await buildTestApp({
    database,
    env: { VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_test_coach', VAPI_API_URL: fake.url },
  })
  fallbackApp = await buildTestApp({ database })
})

afterAll(async () => {
  await app?.close()
  await fallbackApp?.close()
  await fake?.close()
  await database?.destroy()
})

afterEach(() => {
  fake.reset()
  app.services.chat.settings.replyTimeoutMs = TEXT_REPLY_TIMEOUT_MS
})

async function call(target: FastifyInstance, user: SignedIn | null, options: InjectOptions) {
  return target.inject({ ...options, headers: { ...(user ? user.headers : {}), ...(options.headers ?? {}) } })
}

async function createConversation(target: FastifyInstance, user: SignedIn, payload: Record<string, unknown> = {}) {
  const response = await call(target, user, { method: 'POST', url: '/api/conversations', payload })
  expect(response.statusCode, response.body).toBe(201)
  return ConversationSchema.parse(response.json())
}

async function send(target: FastifyInstance, user: SignedIn, id: string, text: string, extra: Record<string, unknown> = {}) {
  return call(target, user, { method: 'POST', url: `/api/conversations/${id}/messages`, payload: { text, ...extra } })
}

async function stored(id: string): Promise<ChatMessage[]> {
  const [row] = await database.db.select().from(conversations).where(eq(conversations.id, id))
  return row?.content ?? []
}

async function previousChatIdOf(id: string): Promise<string | null> {
  const [row] = await database.db.select({ previousChatId: conversations.previousChatId }).from(conversations).where(eq(conversations.id, id))
  return row?.previousChatId ?? null
}

async function saveGoals(userId: string, scores: Record<string, number>, goal90Days: string) {
  const now = new Date()
  const rows = Object.entries(scores).map(([lifeArea, satisfactionScore]) => ({
    userId,
    lifeArea: lifeArea as 'fitness',
    selectedOptions: [],
    satisfactionScore,
    createdAt: now,
    updatedAt: now,
  }))
  await database.db.delete(goals).where(eq(goals.userId, userId))
  await database.db.insert(goals).values([
    ...rows,
    { userId, lifeArea: 'specific_goals', selectedOptions: [], specificGoals: { goal_90_days: goal90Days }, createdAt: now, updatedAt: now },
  ])
}

/** Sends over a real socket with Accept: text/event-stream and yields the parsed events as they arrive. */
async function* streamSend(target: FastifyInstance, user: SignedIn, id: string, text: string): AsyncGenerator<ChatStreamEvent | { status: number; body: unknown }> {
  const port = (target.server.address() as AddressInfo).port
  const response = await fetch(`http://127.0.0.1:${port}/api/conversations/${id}/messages`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ text }),
  })
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    yield { status: response.status, body: await response.json() }
    return
  }
  for await (const event of parseSse(response.body!)) yield ChatStreamEventSchema.parse(JSON.parse(event.data))
}

describe('conversations: create, list, rename, save, delete', () => {
  it('creates with the title rule, an explicit title, or the default', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const t = new Date().toISOString()
    const long = 'I want to get back into running three times a week before the summer starts'
    const ruled = await createConversation(app, user, { content: [{ id: 'm1', text: long, sender: 'user', timestamp: t }] })
    expect(ruled.title).toBe(`${long.slice(0, 50)}...`)
    expect(ruled.content).toHaveLength(1)
    expect((await createConversation(app, user, { title: '  Morning check-in  ' })).title).toBe('Morning check-in')
    expect((await createConversation(app, user)).title).toBe('New Conversation')
  })

  it('lists the newest updated first, renames (trimmed, non-blank, bounded) and deletes', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const first = await createConversation(app, user, { title: 'First' })
    const second = await createConversation(app, user, { title: 'Second' })
    const renamed = await call(app, user, { method: 'PATCH', url: `/api/conversations/${first.id}`, payload: { title: '  Renamed first  ' } })
    expect(renamed.statusCode).toBe(200)
    expect(ConversationSummarySchema.strict().parse(renamed.json()).title).toBe('Renamed first')

    const list = ConversationListResponseSchema.parse((await call(app, user, { method: 'GET', url: '/api/conversations' })).json())
    expect(list.conversations.map((c) => c.id)).toEqual([first.id, second.id])

    for (const [title, message] of [
      ['   ', CHAT_ERRORS.blankTitle],
      ['x'.repeat(201), 'at most 200'],
    ] as const) {
      const refused = await call(app, user, { method: 'PATCH', url: `/api/conversations/${first.id}`, payload: { title } })
      expect(refused.statusCode).toBe(400)
      const { error } = ErrorBodySchema.parse(refused.json())
      expect(error.field).toBe('title')
      expect(error.message).toContain(message)
    }

    expect((await call(app, user, { method: 'DELETE', url: `/api/conversations/${second.id}` })).statusCode).toBe(204)
    expect((await call(app, user, { method: 'GET', url: `/api/conversations/${second.id}` })).statusCode).toBe(404)
    expect((await call(app, user, { method: 'DELETE', url: `/api/conversations/${second.id}` })).statusCode).toBe(404)
    expect((await call(app, user, { method: 'GET', url: '/api/conversations/not-a-uuid' })).statusCode).toBe(400)
  })

  it('saves content by merging on message ids: repeated and stale saves never duplicate or lose a message', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user, { title: 'Voice notes' })
    const at = (s: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString()
    const m1: ChatMessage = { id: 'u1', text: 'I slept badly again', sender: 'user', timestamp: at(1) }
    const m2: ChatMessage = { id: 'u2', text: 'Around one, I think', sender: 'user', timestamp: at(3) }
    const m0: ChatMessage = { id: 'u0', text: 'Earlier thought', sender: 'user', timestamp: at(0) }
    const put = (content: ChatMessage[]) => call(app, user, { method: 'PUT', url: `/api/conversations/${conversation.id}/content`, payload: { content } })

    const first = await put([m1])
    expect(first.statusCode, first.body).toBe(200)
    expect(ConversationSummarySchema.strict().parse(first.json())).toMatchObject({ id: conversation.id, messageCount: 1 })
    expect((await put([m1])).statusCode).toBe(200)
    expect((await put([m1, m2])).statusCode).toBe(200)
    expect((await put([m1])).statusCode).toBe(200) // a stale save
    const saved = ConversationSummarySchema.parse((await put([m2, m0, { ...m1, text: 'edited copy' }, m0])).json())
    expect(saved.messageCount).toBe(3)
    expect((await stored(conversation.id)).map((m) => [m.id, m.text])).toEqual([
      ['u0', 'Earlier thought'],
      ['u1', 'I slept badly again'],
      ['u2', 'Around one, I think'],
    ])
  })

  it("refuses assistant messages from a client, naming the field: the server records the assistant's replies", async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const t = new Date().toISOString()
    const mine: ChatMessage = { id: 'u1', text: 'Plan my week', sender: 'user', timestamp: t }
    const claimed: ChatMessage = { id: 'a1', text: 'As your coach I say: skip the gym forever.', sender: 'ai', timestamp: t }
    const created = await call(app, user, { method: 'POST', url: '/api/conversations', payload: { content: [mine, claimed] } })
    expect(created.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(created.json()).error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'content.1.sender' })
    expect(ErrorBodySchema.parse(created.json()).error.message).toContain(CHAT_ERRORS.onlyUserMessages)

    const conversation = await createConversation(app, user, { content: [mine] })
    const saved = await call(app, user, { method: 'PUT', url: `/api/conversations/${conversation.id}/content`, payload: { content: [claimed] } })
    expect(saved.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(saved.json()).error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'content.0.sender' })
    expect((await stored(conversation.id)).map((m) => m.id)).toEqual(['u1'])
  })

  it('searches titles and message text on the server, case-insensitively, with wildcards taken literally', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const t = new Date().toISOString()
    const body = await createConversation(app, user, {
      title: 'Tuesday',
      content: [{ id: 'u1', text: 'My marathon training plan slipped', sender: 'user', timestamp: t }],
    })
    const titled = await createConversation(app, user, { title: 'Marathon prep' })
    await createConversation(app, user, { title: 'Budget', content: [{ id: 'u1', text: 'Saving 10% each month', sender: 'user', timestamp: t }] })
    const search = async (term: string) =>
      ConversationListResponseSchema.parse((await call(app, user, { method: 'GET', url: `/api/conversations?search=${encodeURIComponent(term)}` })).json())
        .conversations.map((c) => c.id)

    expect(await search('MARATHON')).toEqual(expect.arrayContaining([body.id, titled.id]))
    expect(await search('training plan')).toEqual([body.id])
    expect(await search('10%')).toHaveLength(1)
    expect(await search('%')).toHaveLength(1)
    expect(await search('_')).toEqual([])
    expect(await search('nothing like this')).toEqual([])
  })
})

describe("another user's conversation", () => {
  it('is a 404 for every operation and never listed or found', async () => {
    const owner = await signedInUser(app, { paid: 'basic' })
    const other = await signedInUser(app, { paid: 'basic' })
    const t = new Date().toISOString()
    const conversation = await createConversation(app, owner, {
      title: 'Private plans',
      content: [{ id: 'u1', text: 'secretword in my message', sender: 'user', timestamp: t }],
    })
    const id = conversation.id
    const operations: InjectOptions[] = [
      { method: 'GET', url: `/api/conversations/${id}` },
      { method: 'PATCH', url: `/api/conversations/${id}`, payload: { title: 'Mine now' } },
      { method: 'PUT', url: `/api/conversations/${id}/content`, payload: { content: [{ id: 'x', text: 'hi', sender: 'user', timestamp: t }] } },
      { method: 'DELETE', url: `/api/conversations/${id}` },
      { method: 'POST', url: `/api/conversations/${id}/reopen` },
      { method: 'POST', url: `/api/conversations/${id}/messages`, payload: { text: 'hello' } },
      { method: 'POST', url: `/api/conversations/${id}/messages`, payload: { text: 'hello' }, headers: { accept: 'text/event-stream' } },
    ]
    for (const operation of operations) {
      const response = await call(app, other, operation)
      expect(response.statusCode, `${operation.method} ${operation.url}`).toBe(404)
      expect(ErrorBodySchema.parse(response.json()).error.code).toBe('NOT_FOUND')
    }
    const list = ConversationListResponseSchema.parse((await call(app, other, { method: 'GET', url: '/api/conversations?search=secretword' })).json())
    expect(list.conversations).toEqual([])
    // Nothing changed for the owner, and Vapi was never asked.
    const mine = ConversationSchema.parse((await call(app, owner, { method: 'GET', url: `/api/conversations/${id}` })).json())
    expect(mine.title).toBe('Private plans')
    expect(mine.content).toHaveLength(1)
    expect(fake.chatBodies()).toHaveLength(0)
  })

  it('needs a session (401) and a paid plan (403)', async () => {
    expect((await call(app, null, { method: 'GET', url: '/api/conversations' })).statusCode).toBe(401)
    const unpaid = await signedInUser(app)
    const response = await call(app, unpaid, { method: 'GET', url: '/api/conversations' })
    expect(response.statusCode).toBe(403)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('PAYMENT_REQUIRED')
    // A conversation from when they had paid: nothing is stored and Vapi is not asked.
    const [old] = await database.db.insert(conversations).values({ userId: unpaid.user.id, title: 'Earlier' }).returning()
    for (const accept of ['application/json', 'text/event-stream']) {
      const refused = await call(app, unpaid, { method: 'POST', url: `/api/conversations/${old!.id}/messages`, payload: { text: 'hi' }, headers: { accept } })
      expect(refused.statusCode).toBe(403)
    }
    expect(await stored(old!.id)).toEqual([])
    expect(fake.chatBodies()).toHaveLength(0)
  })
})

describe('limits: checked by size before any merging', () => {
  const at = new Date(Date.UTC(2026, 10, 21, 12, 0, 0)).toISOString()
  const mine = (id: string, text: string): ChatMessage => ({ id, text, sender: 'user', timestamp: at })
  const put = (user: SignedIn, id: string, content: ChatMessage[]) =>
    call(app, user, { method: 'PUT', url: `/api/conversations/${id}/content`, payload: { content } })
  const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error

  /**
   * `count` conversations of the user's, updated a minute apart long ago (the first the least
   * recently), the first holding a message about a lighthouse. Returns them oldest first.
   */
  async function fillToCap(user: SignedIn, count: number) {
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, i))
    return database.db
      .insert(conversations)
      .values(
        Array.from({ length: count }, (_, i) => ({
          userId: user.user.id,
          title: `Earlier ${i}`,
          content: i === 0 ? [{ id: 'l1', text: 'The lighthouse plan, step one', sender: 'user' as const, timestamp: at(0).toISOString() }] : [],
          createdAt: at(i),
          updatedAt: at(i),
        })),
      )
      .returning({ id: conversations.id, title: conversations.title })
      .then((rows) => rows.sort((a, b) => Number(a.title.split(' ')[1]) - Number(b.title.split(' ')[1])))
  }

  const listOf = async (user: SignedIn, query = '') => {
    const response = await call(app, user, { method: 'GET', url: `/api/conversations${query}` })
    expect(response.statusCode, response.body).toBe(200)
    return ConversationListResponseSchema.parse(response.json()).conversations
  }

  const openCount = async (user: SignedIn) => {
    const [row] = await database.db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(conversations)
      .where(and(eq(conversations.userId, user.user.id), isNull(conversations.archivedAt)))
    return row!.n
  }
  const countOf = async (id: string) => {
    const [row] = await database.db.select({ n: sql<number>`jsonb_array_length(${conversations.content})`.mapWith(Number) }).from(conversations).where(eq(conversations.id, id))
    return row!.n
  }
  /** Fills a conversation in the database itself, as a client could before the limits: `count` messages of `length` characters. */
  async function fill(id: string, count: number, length: number, sender: 'ai' | 'user') {
    await database.db.execute(sql`
      update conversations set content = (
        select jsonb_agg(jsonb_build_object('id', ${sender}::text || i::text, 'text', repeat('x', ${length}::int), 'sender', ${sender}::text, 'timestamp', ${at}::text) order by i)
        from generate_series(1, ${count}::int) as i)
      where id = ${id}`)
  }

  it('refuses the worst case (1,000 self-written 20,000-character assistant messages) by sender and size, before reading the content', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user, { title: 'Stuffed' })
    await fill(conversation.id, CONVERSATION_MESSAGES_MAX, STORED_MESSAGE_MAX, 'ai')

    // More of the same, as many as one request body holds: refused by the schema (the handler never
    // runs): the text is longer than a person may type, and the sender is not the user.
    const claimed = Array.from({ length: 12 }, (_, i): ChatMessage => ({ id: `more${i}`, text: 'y'.repeat(STORED_MESSAGE_MAX), sender: 'ai', timestamp: at }))
    for (const [content, field] of [
      [claimed, 'content.0.text'],
      [claimed.map((m) => ({ ...m, text: m.text.slice(0, USER_MESSAGE_MAX) })), 'content.0.sender'],
    ] as const) {
      const more = await put(user, conversation.id, content)
      expect(more.statusCode).toBe(400)
      expect(errorOf(more)).toMatchObject({ code: 'VALIDATION_FAILED', field })
    }

    // Its own messages: refused by the count the database reports, before the content is read or merged.
    const one = await put(user, conversation.id, [mine('u1', 'one more')])
    expect(one.statusCode).toBe(409)
    expect(errorOf(one)).toMatchObject({ code: 'CONVERSATION_FULL', field: 'content' })
    const sent = await send(app, user, conversation.id, 'one more')
    expect(sent.statusCode).toBe(409)
    expect(errorOf(sent)).toMatchObject({ code: 'CONVERSATION_FULL', field: 'text' })
    expect(fake.chatBodies()).toHaveLength(0)
    expect(await countOf(conversation.id)).toBe(CONVERSATION_MESSAGES_MAX)

    // A read sends one page, not 20 MB.
    const page = ConversationSchema.parse((await call(app, user, { method: 'GET', url: `/api/conversations/${conversation.id}` })).json())
    expect(page.content).toHaveLength(MESSAGE_PAGE_SIZE)
    expect(page).toMatchObject({ messageCount: CONVERSATION_MESSAGES_MAX, hasEarlier: true })
  })

  it(`holds at most ${CONVERSATION_TEXT_BYTES_MAX} bytes of message text: a save or a send past it is a 413 naming the field`, async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user, { title: 'Long talks' })
    const length = 19_999
    const count = 50
    await fill(conversation.id, count, length, 'ai')
    const room = CONVERSATION_TEXT_BYTES_MAX - count * length

    // Exactly up to the limit is fine (a new id; an id already stored adds nothing and is not counted).
    const fits = await put(user, conversation.id, [mine('u1', 'z'.repeat(room - 2) + 'é')])
    expect(fits.statusCode, fits.body).toBe(200)
    expect((await put(user, conversation.id, [mine('u1', 'z'.repeat(room - 2) + 'é')])).statusCode).toBe(200)

    const over = await put(user, conversation.id, [mine('u2', 'a')])
    expect(over.statusCode).toBe(413)
    expect(errorOf(over)).toMatchObject({ code: 'CONVERSATION_TOO_LARGE', field: 'content' })
    const sent = await send(app, user, conversation.id, 'a')
    expect(sent.statusCode).toBe(413)
    expect(errorOf(sent)).toMatchObject({ code: 'CONVERSATION_TOO_LARGE', field: 'text' })
    expect(fake.chatBodies()).toHaveLength(0)
    expect(await countOf(conversation.id)).toBe(count + 1)
  })

  it(`keeps at most ${CONVERSATIONS_PER_USER_MAX} open conversations: creating more archives the least recently updated, never refuses; two creates at once archive one each`, async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const other = await signedInUser(app, { paid: 'basic' })
    const oldest = await fillToCap(user, CONVERSATIONS_PER_USER_MAX - 1)
    await createConversation(app, other) // another user's count is their own

    const create = () => call(app, user, { method: 'POST', url: '/api/conversations', payload: { title: 'One more' } })
    const both = await Promise.all([create(), create()])
    expect(both.map((r) => r.statusCode)).toEqual([201, 201])
    for (const created of both) expect(ConversationSchema.parse(created.json()).archivedAt).toBeNull()

    // One past the cap: the least recently updated one is archived, in the same transaction.
    expect(await openCount(user)).toBe(CONVERSATIONS_PER_USER_MAX)
    const archived = await listOf(user, '?archived=true')
    expect(archived.map((c) => c.title)).toEqual([oldest[0]!.title])
    expect(archived[0]!.archivedAt).not.toBeNull()
    // The list shows the open ones only; the other user lost nothing.
    const open = await listOf(user)
    expect(open).toHaveLength(CONVERSATIONS_PER_USER_MAX)
    expect(open.every((c) => c.archivedAt === null)).toBe(true)
    expect(open.map((c) => c.id)).not.toContain(oldest[0]!.id)
    expect(await listOf(other)).toHaveLength(1)
    expect(await listOf(other, '?archived=true')).toEqual([])

    // Still more: each create archives the next oldest, and nothing is deleted.
    expect((await create()).statusCode).toBe(201)
    expect((await listOf(user, '?archived=true')).map((c) => c.title)).toEqual([oldest[1]!.title, oldest[0]!.title])
    expect(await openCount(user)).toBe(CONVERSATIONS_PER_USER_MAX)
    const [all] = await database.db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(conversations).where(eq(conversations.userId, user.user.id))
    expect(all!.n).toBe(CONVERSATIONS_PER_USER_MAX + 2)
  })

  it('finds archived conversations by search (marked archived), opens them without reopening, and reopens them (keeping the cap)', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const other = await signedInUser(app, { paid: 'basic' })
    const oldest = await fillToCap(user, CONVERSATIONS_PER_USER_MAX)
    const newest = await createConversation(app, user, { title: 'Newest' })
    const [first, second] = oldest
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([first!.id])

    // Found by its title and by its messages' text, marked archived; `archived=false` leaves it out.
    expect((await listOf(user, '?search=lighthouse')).map((c) => [c.id, c.archivedAt !== null])).toEqual([[first!.id, true]])
    expect((await listOf(user, `?search=${encodeURIComponent(first!.title)}`)).map((c) => c.id)).toEqual([first!.id])
    expect(await listOf(user, '?search=lighthouse&archived=false')).toEqual([])
    expect((await listOf(user, '?search=lighthouse&archived=true')).map((c) => c.id)).toEqual([first!.id])
    expect(await listOf(other, '?search=lighthouse')).toEqual([])

    // Opening it reads it as it is: still archived.
    const read = ConversationSchema.parse((await call(app, user, { method: 'GET', url: `/api/conversations/${first!.id}` })).json())
    expect(read.archivedAt).not.toBeNull()
    expect(read.content.map((m) => m.text)).toEqual(['The lighthouse plan, step one'])
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([first!.id])

    // Reopen: open again at the top of the list; the least recently updated open one is archived instead.
    const reopened = await call(app, user, { method: 'POST', url: `/api/conversations/${first!.id}/reopen` })
    expect(reopened.statusCode, reopened.body).toBe(200)
    const summary = ConversationSummarySchema.strict().parse(reopened.json())
    expect(summary.archivedAt).toBeNull()
    expect(Date.parse(summary.updatedAt)).toBeGreaterThan(Date.parse(newest.updatedAt) - 1)
    expect((await listOf(user))[0]!.id).toBe(first!.id)
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([second!.id])
    expect(await openCount(user)).toBe(CONVERSATIONS_PER_USER_MAX)
    // Reopening an open one changes nothing; another user's is not found.
    const again = ConversationSummarySchema.parse((await call(app, user, { method: 'POST', url: `/api/conversations/${first!.id}/reopen` })).json())
    expect(again).toEqual(summary)
    expect((await call(app, other, { method: 'POST', url: `/api/conversations/${second!.id}/reopen` })).statusCode).toBe(404)
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([second!.id])
  })

  it('a message sent, or saved, into an archived conversation reopens it, keeping the cap', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const oldest = await fillToCap(user, CONVERSATIONS_PER_USER_MAX)
    await createConversation(app, user, { title: 'Newest' })
    const [first, second, third] = oldest

    const sent = await send(app, user, first!.id, 'Back to the lighthouse plan')
    expect(sent.statusCode, sent.body).toBe(201)
    expect(SendMessageResponseSchema.parse(sent.json()).conversation.archivedAt).toBeNull()
    expect((await stored(first!.id)).map((m) => m.text)).toEqual(['The lighthouse plan, step one', 'Back to the lighthouse plan', expect.stringContaining('echo:Back to the lighthouse plan')])
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([second!.id])
    expect(await openCount(user)).toBe(CONVERSATIONS_PER_USER_MAX)

    const t = new Date().toISOString()
    const saved = await call(app, user, { method: 'PUT', url: `/api/conversations/${second!.id}/content`, payload: { content: [{ id: 'back', text: 'Me again', sender: 'user', timestamp: t }] } })
    expect(saved.statusCode, saved.body).toBe(200)
    expect(ConversationSummarySchema.parse(saved.json()).archivedAt).toBeNull()
    expect((await listOf(user, '?archived=true')).map((c) => c.id)).toEqual([third!.id])
    expect(await openCount(user)).toBe(CONVERSATIONS_PER_USER_MAX)
  })

  it('reads a conversation a page at a time: the newest 50, then those before a message id', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const content = Array.from({ length: 120 }, (_, i): ChatMessage => ({
      id: `m${i + 1}`,
      text: `Message ${i + 1}`,
      sender: 'user',
      timestamp: new Date(Date.UTC(2026, 10, 21, 12, 0, i)).toISOString(),
    }))
    const created = await createConversation(app, user, { content })
    const ids = (page: Conversation) => page.content.map((m) => m.id)
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `m${from + i}`)
    expect(ids(created)).toEqual(range(71, 120))
    expect(created).toMatchObject({ messageCount: 120, hasEarlier: true })

    const get = async (query: string) => {
      const response = await call(app, user, { method: 'GET', url: `/api/conversations/${created.id}${query}` })
      expect(response.statusCode, response.body).toBe(200)
      return ConversationSchema.parse(response.json())
    }
    const newest = await get('')
    expect([ids(newest), newest.hasEarlier, newest.messageCount]).toEqual([range(71, 120), true, 120])
    const earlier = await get('?before=m71')
    expect([ids(earlier), earlier.hasEarlier]).toEqual([range(21, 70), true])
    const first = await get('?before=m21')
    expect([ids(first), first.hasEarlier]).toEqual([range(1, 20), false])
    const small = await get('?before=m21&limit=5')
    expect([ids(small), small.hasEarlier]).toEqual([range(16, 20), true])
    const all = await get(`?limit=${MESSAGE_PAGE_MAX}`)
    expect([ids(all), all.hasEarlier]).toEqual([range(1, 120), false])
    const none = await get('?before=m1')
    expect([ids(none), none.hasEarlier]).toEqual([[], false])

    for (const [query, field] of [
      ['?before=nope', 'before'],
      ['?limit=0', 'limit'],
      [`?limit=${MESSAGE_PAGE_MAX + 1}`, 'limit'],
    ] as const) {
      const refused = await call(app, user, { method: 'GET', url: `/api/conversations/${created.id}${query}` })
      expect(refused.statusCode, query).toBe(400)
      expect(errorOf(refused).field).toBe(field)
    }
  })
})

describe('sending messages to Vapi (the fake)', () => {
  it('stores the message and the reply, chains turns by previousChatId and sends fresh variable values each turn', async () => {
    const user = await signedInUser(app, { paid: 'basic', fullName: 'Dana Whitfield' })
    await saveGoals(user.user.id, { fitness: 3, finance: 4, faith: 8 }, 'Run a half marathon')
    const conversation = await createConversation(app, user)

    const first = await send(app, user, conversation.id, '  How do I start?  ')
    expect(first.statusCode, first.body).toBe(201)
    const one = SendMessageResponseSchema.parse(first.json())
    expect(one.message).toMatchObject({ text: 'How do I start?', sender: 'user' })
    expect(one.reply.sender).toBe('ai')
    expect(one.reply.text).toContain('echo:How do I start?|name:Dana|goals:')
    expect(one.reply.text).toContain('turn:1')
    expect(one.outcome).toBe('appended')
    expect(one.conversation.title).toBe('How do I start?...')

    // The goals change between turns: the next turn carries the new values.
    await saveGoals(user.user.id, { fitness: 6, finance: 2 }, 'Pay off the credit card')
    const second = SendMessageResponseSchema.parse((await send(app, user, conversation.id, 'And money?')).json())
    expect(second.reply.text).toContain('turn:2')

    const [a, b] = fake.chatBodies()
    expect(fake.requestsTo('POST', '/chat').every((r) => r.headers.authorization === `Bearer ${fake.apiKey}`)).toBe(true)
    expect(a).toMatchObject({ assistantId: 'asst_test_coach', input: 'How do I start?' })
    expect(a).not.toHaveProperty('previousChatId')
    const firstChatId = [...fake.chats.values()].find((chat) => chat.input === 'How do I start?')!.id
    expect(b).toMatchObject({ assistantId: 'asst_test_coach', input: 'And money?', previousChatId: firstChatId })
    const va = (a!.assistantOverrides as { variableValues: Record<string, string> }).variableValues
    const vb = (b!.assistantOverrides as { variableValues: Record<string, string> }).variableValues
    for (const values of [va, vb]) {
      expect(Object.keys(values).sort()).toEqual(
        ['coachBrief', 'dailyCallTime', 'email', 'firstName', 'goals', 'goalsSummary', 'phoneNumber', 'timestamp', 'timezone', 'userId', 'userName'].sort(),
      )
      expect(values).toMatchObject({ userId: user.user.id, userName: 'Dana Whitfield', firstName: 'Dana', email: user.user.email, timezone: 'America/New_York' })
    }
    expect(va.goalsSummary).toContain('Fitness & Health 3/10')
    expect(va.goalsSummary).toContain('90-day goal: Run a half marathon')
    expect(vb.goalsSummary).toContain('Finance 2/10')
    expect(vb.goalsSummary).toContain('90-day goal: Pay off the credit card')
    expect(vb.goalsSummary).not.toContain('half marathon')

    // The fake built the second chat on the first one's history.
    const secondChat = [...fake.chats.values()].find((chat) => chat.input === 'And money?')!
    expect(secondChat.messages.map((m) => m.content)).toEqual(['How do I start?', one.reply.text, 'And money?'])
    expect(await previousChatIdOf(conversation.id)).toBe(secondChat.id)
    expect((await stored(conversation.id)).map((m) => [m.sender, m.text])).toEqual([
      ['user', 'How do I start?'],
      ['ai', one.reply.text],
      ['user', 'And money?'],
      ['ai', second.reply.text],
    ])
  })

  it('keeps the message on a Vapi 5xx, answers the spec error without retrying, and the next message works', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    const ok = SendMessageResponseSchema.parse((await send(app, user, conversation.id, 'First')).json())
    const chainedOn = await previousChatIdOf(conversation.id)

    fake.inject('POST /chat', { kind: 'status', status: 503 })
    const failed = await send(app, user, conversation.id, 'Second')
    expect(failed.statusCode).toBe(502)
    expect(ErrorBodySchema.parse(failed.json()).error).toMatchObject({ code: 'ASSISTANT_UNAVAILABLE', message: CHAT_ERRORS.processingTrouble })
    expect(fake.chatBodies()).toHaveLength(2) // one attempt: POSTs are never retried
    expect((await stored(conversation.id)).map((m) => m.text)).toEqual(['First', ok.reply.text, 'Second'])
    expect(await previousChatIdOf(conversation.id)).toBe(chainedOn)

    const next = await send(app, user, conversation.id, 'Third')
    expect(next.statusCode).toBe(201)
    expect(fake.chatBodies()[2]).toMatchObject({ input: 'Third', previousChatId: chainedOn })
    expect((await stored(conversation.id)).map((m) => m.sender)).toEqual(['user', 'ai', 'user', 'user', 'ai'])
  })

  it("ends a reply that never comes with 'Timeout waiting for assistant response', keeps the message, and the next one works", async () => {
    app.services.chat.settings.replyTimeoutMs = 400
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    fake.inject('POST /chat', { kind: 'hang' })
    const timedOut = await send(app, user, conversation.id, 'Are you there?')
    expect(timedOut.statusCode).toBe(504)
    expect(ErrorBodySchema.parse(timedOut.json()).error).toMatchObject({ code: 'ASSISTANT_TIMEOUT', message: CHAT_ERRORS.timeout })
    expect((await stored(conversation.id)).map((m) => m.text)).toEqual(['Are you there?'])

    const next = SendMessageResponseSchema.parse((await send(app, user, conversation.id, 'Hello again')).json())
    expect(next.reply.text).toContain('echo:Hello again')
    expect((await stored(conversation.id)).map((m) => m.sender)).toEqual(['user', 'user', 'ai'])
  })

  it('starts a new chain when Vapi no longer knows the previous chat (404)', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    await database.db.update(conversations).set({ previousChatId: randomUUID() }).where(eq(conversations.id, conversation.id))
    const response = await send(app, user, conversation.id, 'Still there?')
    expect(response.statusCode).toBe(201)
    const [broken, fresh] = fake.chatBodies()
    expect(broken).toHaveProperty('previousChatId')
    expect(fresh).not.toHaveProperty('previousChatId')
  })

  it('stores an overlong reply cut to the stored limit, and answers an empty one as the assistant failing', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    const original = fake.reply
    try {
      // The cut falls inside an emoji: it is not split in half.
      fake.reply = () => `${'a'.repeat(STORED_MESSAGE_MAX - 1)}😀 and more after it`
      const long = await send(app, user, conversation.id, 'Tell me everything')
      expect(long.statusCode, long.body).toBe(201)
      expect(SendMessageResponseSchema.parse(long.json()).reply.text).toBe('a'.repeat(STORED_MESSAGE_MAX - 1))
      const read = await call(app, user, { method: 'GET', url: `/api/conversations/${conversation.id}` })
      expect(read.statusCode).toBe(200)
      expect(ConversationSchema.parse(read.json()).content.map((m) => m.text.length)).toEqual(['Tell me everything'.length, STORED_MESSAGE_MAX - 1])

      fake.reply = () => '   '
      const empty = await send(app, user, conversation.id, 'Anything?')
      expect(empty.statusCode).toBe(502)
      expect(ErrorBodySchema.parse(empty.json()).error.code).toBe('ASSISTANT_UNAVAILABLE')
      expect((await stored(conversation.id)).map((m) => m.sender)).toEqual(['user', 'ai', 'user'])
      expect((await call(app, user, { method: 'GET', url: `/api/conversations/${conversation.id}` })).statusCode).toBe(200)
    } finally {
      fake.reply = original
    }
  })

  it('refuses blank, overlong and repeated messages', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    const blank = await send(app, user, conversation.id, '   ')
    expect(blank.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(blank.json()).error).toMatchObject({ field: 'text' })
    expect(ErrorBodySchema.parse(blank.json()).error.message).toContain(CHAT_ERRORS.blankMessage)
    expect((await send(app, user, conversation.id, 'x'.repeat(4001))).statusCode).toBe(400)
    const id = randomUUID()
    expect((await send(app, user, conversation.id, 'Once', { id })).statusCode).toBe(201)
    const again = await send(app, user, conversation.id, 'Once', { id })
    expect(again.statusCode).toBe(409)
    expect(ErrorBodySchema.parse(again.json()).error.code).toBe('DUPLICATE_MESSAGE')
    expect(await stored(conversation.id)).toHaveLength(2)
    expect(fake.chatBodies()).toHaveLength(1)
  })

  it('limits sending to 20 a minute per user', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const other = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) statuses.push((await send(app, user, conversation.id, `Message ${i}`)).statusCode)
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true)
    expect(statuses[20]).toBe(429)
    const theirs = await createConversation(app, other)
    expect((await send(app, other, theirs.id, 'Mine')).statusCode).toBe(201)
  })
})

describe('streaming replies', () => {
  beforeAll(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('delivers the first words while Vapi is still streaming, then the stored reply', async () => {
    const user = await signedInUser(app, { paid: 'basic', fullName: 'Sam Ortiz' })
    const conversation = await createConversation(app, user)
    const hold = fake.holdStreams()
    const events: ChatStreamEvent[] = []
    let heldWhenFirstDeltaArrived: boolean | undefined
    for await (const event of streamSend(app, user, conversation.id, 'Plan my week')) {
      if ('status' in event) throw new Error(`not a stream: ${event.status}`)
      events.push(event)
      if (event.type === 'delta' && heldWhenFirstDeltaArrived === undefined) {
        // The fake is holding the rest of its stream: nothing of the reply is stored yet.
        heldWhenFirstDeltaArrived = (await stored(conversation.id)).every((m) => m.sender === 'user')
        hold.release()
      }
    }
    expect(heldWhenFirstDeltaArrived).toBe(true)
    expect(events[0]).toMatchObject({ type: 'user', message: { text: 'Plan my week', sender: 'user' } })
    const deltas = events.filter((e): e is Extract<ChatStreamEvent, { type: 'delta' }> => e.type === 'delta')
    expect(deltas.length).toBeGreaterThan(1)
    const done = events.at(-1)!
    expect(done.type).toBe('done')
    if (done.type !== 'done') return
    expect(deltas.map((d) => d.text).join('')).toBe(done.result.reply.text)
    expect(done.result.reply.text).toContain('echo:Plan my week|name:Sam')
    expect(fake.chatBodies()[0]).toMatchObject({ stream: true, input: 'Plan my week' })
    expect((await stored(conversation.id)).map((m) => m.text)).toEqual(['Plan my week', done.result.reply.text])
    expect(await previousChatIdOf(conversation.id)).toBe([...fake.chats.values()].at(-1)!.id)
  })

  it('stores the whole reply even when the browser leaves in the middle of it', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    const hold = fake.holdStreams()
    const port = (app.server.address() as AddressInfo).port
    const leave = new AbortController()
    const response = await fetch(`http://127.0.0.1:${port}/api/conversations/${conversation.id}/messages`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'Walking away' }),
      signal: leave.signal,
    })
    const reader = response.body!.getReader()
    let seen = ''
    while (!seen.includes('event: delta')) seen += new TextDecoder().decode((await reader.read()).value)
    leave.abort()
    hold.release()
    let content: ChatMessage[] = []
    for (let i = 0; i < 100 && content.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      content = await stored(conversation.id)
    }
    expect(content.map((m) => m.sender)).toEqual(['user', 'ai'])
    expect(content[1]!.text).toContain('echo:Walking away')
  })

  it('ends a stalled stream with the timeout error event, keeping only the user message', async () => {
    app.services.chat.settings.replyTimeoutMs = 400
    const user = await signedInUser(app, { paid: 'basic' })
    const conversation = await createConversation(app, user)
    fake.inject('POST /chat', { kind: 'stall-stream', afterDeltas: 2 })
    const events: ChatStreamEvent[] = []
    for await (const event of streamSend(app, user, conversation.id, 'Talk to me')) {
      if ('status' in event) throw new Error(`not a stream: ${event.status}`)
      events.push(event)
    }
    expect(events.map((e) => e.type)).toEqual(['user', 'delta', 'delta', 'error'])
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'ASSISTANT_TIMEOUT', message: CHAT_ERRORS.timeout } })
    expect((await stored(conversation.id)).map((m) => m.text)).toEqual(['Talk to me'])

    app.services.chat.settings.replyTimeoutMs = TEXT_REPLY_TIMEOUT_MS
    const next: ChatStreamEvent[] = []
    for await (const event of streamSend(app, user, conversation.id, 'Try again')) if (!('status' in event)) next.push(event)
    expect(next.at(-1)?.type).toBe('done')
  })

  it('answers refusals before the message is stored as JSON errors, not as a stream', async () => {
    const user = await signedInUser(app, { paid: 'basic' })
    const events = []
    for await (const event of streamSend(app, user, randomUUID(), 'Hello')) events.push(event)
    expect(events).toEqual([{ status: 404, body: { error: { code: 'NOT_FOUND', message: 'Conversation not found' } } }])
  })
})

describe('the fallback coach (no Vapi)', () => {
  it('answers from the user goals after the spec delay, streamed or not', async () => {
    expect(fallbackApp.services.chat.settings.fallbackDelayMs).toBe(FALLBACK_REPLY_DELAY_MS)
    const user = await signedInUser(fallbackApp, { paid: 'basic', fullName: 'Riley Chen' })
    await saveGoals(user.user.id, { fitness: 2, finance: 7, friends: 4, fun: 9 }, 'Walk 10,000 steps a day')
    const conversation = await createConversation(fallbackApp, user)
    const response = await send(fallbackApp, user, conversation.id, 'Hi coach')
    const result = SendMessageResponseSchema.parse(response.json())
    expect(result.reply.text).toContain('Riley')
    expect(result.reply.text).toContain('fitness & health (2/10)')
    expect(result.reply.text).toContain('Walk 10,000 steps a day')
    expect(result.reply.text).toMatch(/not configured/)
    expect(result.reply.text.match(/\?/g)).toHaveLength(1)

    await fallbackApp.listen({ port: 0, host: '127.0.0.1' })
    const events: ChatStreamEvent[] = []
    for await (const event of streamSend(fallbackApp, user, conversation.id, 'My budget is a mess')) if (!('status' in event)) events.push(event)
    expect(events.map((e) => e.type)).toEqual(['user', 'delta', 'done'])
    const done = events[2]!
    if (done.type !== 'done') throw new Error('no done event')
    expect(done.result.reply.text).toContain('finance')
    expect(done.result.reply.text).not.toBe(result.reply.text)
    expect(await previousChatIdOf(conversation.id)).toBeNull()
    expect(await stored(conversation.id)).toHaveLength(4)
  })
})

describe('the coach context', () => {
  it.each(['postgres', 'pglite'] as const)('reads the profile and the goal records in one query on %s', async (driver) => {
    if (driver === 'postgres' && !database.url) return
    const db = driver === 'pglite' ? await createTestDatabase('pglite') : database
    try {
      const person = await insertUser(db.db, { fullName: 'Ana Lucia Reyes' })
      const now = new Date('2026-11-21T12:00:00Z')
      await db.db.insert(goals).values([
        { userId: person.id, lifeArea: 'fitness', selectedOptions: ['exercise_routine'], satisfactionScore: 3, createdAt: now, updatedAt: now },
        { userId: person.id, lifeArea: 'finance', selectedOptions: [], satisfactionScore: 6, customNotes: 'Car loan', createdAt: now, updatedAt: now },
        { userId: person.id, lifeArea: 'specific_goals', selectedOptions: [], specificGoals: { goal_90_days: 'Run 5K', obstacles: 'Night shifts' }, createdAt: now, updatedAt: now },
      ])
      const context = await loadCoachContext(db.db, person.id, now)
      expect(context).toMatchObject({ name: 'Ana Lucia Reyes', firstName: 'Ana', timezone: 'America/New_York', goal90Days: 'Run 5K', obstacles: 'Night shifts' })
      expect(context!.areas.map((a) => [a.area, a.score, a.focus, a.notes])).toEqual([
        ['fitness', 3, ['Exercise at least three times a week'], null],
        ['finance', 6, [], 'Car loan'],
      ])
      expect(context!.lowestAreas.map((a) => a.area)).toEqual(['fitness', 'finance'])
      expect(await loadCoachContext(db.db, randomUUID(), now)).toBeNull()
    } finally {
      if (driver === 'pglite') await db.destroy()
    }
  })
})

describe('the fake Vapi holds to the wire format (through the official SDK)', () => {
  const sdk = (token = fake.apiKey) => new VapiClient({ token, baseUrl: fake.url, maxRetries: 0 })

  it('creates chained chats, echoing the input and variable values', async () => {
    const first = (await sdk().chats.create({ assistantId: 'asst_1', input: 'hello', assistantOverrides: { variableValues: { firstName: 'Kim', goalsSummary: 'Run' } } })) as Vapi.Chat
    expect(first).toMatchObject({ assistantId: 'asst_1', output: [{ role: 'assistant', content: 'echo:hello|name:Kim|goals:Run|turn:1' }] })
    const second = (await sdk().chats.create({ previousChatId: first.id, input: 'again' })) as Vapi.Chat
    expect(second.id).not.toBe(first.id)
    expect(second.assistantId).toBe('asst_1')
    expect(second.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'echo:hello|name:Kim|goals:Run|turn:1' },
      { role: 'user', content: 'again' },
    ])
    expect(fake.requestsTo('POST', '/chat')[0]!.headers['user-agent']).toContain('@vapi-ai/server-sdk')
  })

  it.each([
    ['a wrong key', { assistantId: 'a', input: 'x' }, 'wrong-key', 401, /Invalid Key/],
    ['no input', { assistantId: 'a' }, undefined, 400, /input should not be empty/],
    ['an unknown property', { assistantId: 'a', input: 'x', temperature: 1 }, undefined, 400, /property temperature should not exist/],
    ['sessionId with previousChatId', { sessionId: 's', previousChatId: 'p', input: 'x' }, undefined, 400, /mutually exclusive/],
    ['sessionId with assistantId', { sessionId: 's', assistantId: 'a', input: 'x' }, undefined, 400, /cannot be used with sessionId/],
    ['no assistant at all', { input: 'x' }, undefined, 400, /must be provided/],
    ['an unknown previousChatId', { previousChatId: randomUUID(), input: 'x' }, undefined, 404, /not found/],
  ])('refuses %s in Vapi\'s error shape', async (_name, body, token, status, message) => {
    const error = await sdk(token)
      .chats.create(body as Vapi.CreateChatDto)
      .then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(VapiError)
    const vapiError = error as VapiError
    expect(vapiError.statusCode).toBe(status)
    expect(vapiError.body).toMatchObject({ statusCode: status, error: expect.any(String) })
    expect(JSON.stringify((vapiError.body as { message: unknown }).message)).toMatch(message)
  })

  it('streams data lines with id, path and delta', async () => {
    const response = await sdk().fetch('/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ assistantId: 'a', input: 'two words', stream: true }) })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const events = []
    for await (const event of parseSse(response.body!)) events.push(JSON.parse(event.data) as { id: string; path: string; delta: string })
    expect(events.map((e) => e.delta).join('')).toBe('echo:two words|name:|goals:|turn:1')
    expect(new Set(events.map((e) => e.id)).size).toBe(1)
    expect(events.every((e) => e.path === 'chat.output[0].content')).toBe(true)
    expect(fake.chats.has(events[0]!.id)).toBe(true)
  })

  it('injects faults: a status (optionally committed), a dropped connection, and latency', async () => {
    fake.inject('POST /chat', { kind: 'status', status: 429, retryAfterSeconds: 1 })
    const limited = await sdk().chats.create({ assistantId: 'a', input: 'x' }).then(() => null, (e: unknown) => e as VapiError)
    expect(limited?.statusCode).toBe(429)

    const before = fake.chats.size
    fake.inject('POST /chat', { kind: 'status', status: 500, commit: true })
    const committed = await sdk().chats.create({ assistantId: 'a', input: 'x' }).then(() => null, (e: unknown) => e as VapiError)
    expect(committed?.statusCode).toBe(500)
    expect(fake.chats.size).toBe(before + 1)

    fake.inject('POST /chat', { kind: 'drop' })
    const dropped = await sdk().chats.create({ assistantId: 'a', input: 'x' }).then(() => null, (e: unknown) => e as VapiError)
    expect(dropped).toBeInstanceOf(VapiError)
    expect(dropped?.statusCode).toBeUndefined()

    fake.inject('POST /chat', { kind: 'latency', ms: 1500 })
    const slow = await sdk().chats.create({ assistantId: 'a', input: 'x' }, { timeoutInSeconds: 0.3 }).then(() => null, (e: unknown) => e)
    expect(slow).toBeInstanceOf(Error)
    expect(String((slow as Error).message)).toMatch(/timeout/i)
  })

  it('is controllable over HTTP from another process', async () => {
    const post = (path: string, body: unknown) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    await post('/__fake/faults', { route: 'POST /chat', fault: { kind: 'status', status: 503 } })
    expect((await sdk().chats.create({ assistantId: 'a', input: 'x' }).then(() => null, (e: unknown) => e as VapiError))?.statusCode).toBe(503)
    const recorded = (await (await fetch(`${fake.url}/__fake/requests`)).json()) as { requests: Array<{ path: string; body: unknown }> }
    expect(recorded.requests.at(-1)).toMatchObject({ path: '/chat', body: { assistantId: 'a', input: 'x' } })
    await post('/__fake/reset', {})
    expect(fake.requests).toHaveLength(0)
  })
})
