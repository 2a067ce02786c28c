/**
 * The coach's memory as the channels write and read it (docs/decisions/083): a chat quiet for 10
 * minutes is extracted by one turn of the chat assistant (the Vapi fake scripts the model's JSON),
 * once per chat and point in it, retried when Vapi fails; the next chat turn reads the brief; the
 * fallback coach keeps the episode only; a coach's session summary and a free-text text become
 * episodes. Jobs run on the in-process runner, driven by a test clock.
 */
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConversationSchema } from '#common/chat'
import { memoryEpisodes, memoryExtractions, memoryFacts } from '#server/db/schema'
import { CHAT_EXTRACTION_PROMPT } from '#server/services/memory'
import { defaultReply, FakeVapi } from '../fakes/vapi'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { manualTimers } from '../helpers/timers'
import { signedInUser, type SignedIn } from '../helpers/users'

const EXTRACTION = JSON.stringify({
  summary: 'Dana talked about her week and her knee.',
  factsLearned: [
    { statement: 'Her daughter starts school on Monday', subject: 'family', stated: true },
    { statement: 'Hurt her left knee running', subject: 'health', stated: true },
    { statement: 'Probably sleeps badly', subject: 'health', stated: false },
    { statement: 'Has been thinking about suicide', subject: 'health', stated: true },
  ],
  factsChanged: [],
})

let database: TestDatabase
let fake: FakeVapi
let app: FastifyInstance
let fallback: FastifyInstance
const clock = fakeClock(new Date('2026-11-21T15:00:00Z'))
const timers = manualTimers(clock)
const fallbackClock = fakeClock(new Date('2026-11-21T15:00:00Z'))
const fallbackTimers = manualTimers(fallbackClock)
/** What the fake's model answers to an extraction turn (a test may make it say something else). */
let extractionReply = EXTRACTION

beforeAll(async () => {
  database = await createTestDatabase()
  fake = await FakeVapi.start({ reply: (input) => (String(input.input).startsWith(CHAT_EXTRACTION_PROMPT) ? `Here it is:\n${extractionReply}` : defaultReply(input)) })
  app = await buildTestApp({ database, clock, timers: timers.timers, env: { VAPI_API_KEY: fake.apiKey, VAPI_ASSISTANT_ID: 'asst_test_coach', VAPI_API_URL: fake.url } })
  fallback = await buildTestApp({ database, clock: fallbackClock, timers: fallbackTimers.timers })
})

afterAll(async () => {
  await app?.close()
  await fallback?.close()
  await fake?.close()
  await database?.destroy()
})

beforeEach(() => {
  fake.reset()
  extractionReply = EXTRACTION
})

/** Moves the clock by `ms`, running every job due on the way. */
async function advance(target: FastifyInstance, driver: ReturnType<typeof manualTimers>, by: ReturnType<typeof fakeClock>, ms: number) {
  const to = new Date(by.now().getTime() + ms)
  for (;;) {
    const next = driver.armed().find((instant) => instant.getTime() <= to.getTime())
    if (!next) break
    driver.advanceTo(next)
    await target.jobRunner!.drain()
  }
  driver.advanceTo(to)
  await target.jobRunner!.drain()
}

async function chat(target: FastifyInstance, user: SignedIn, texts: string[]): Promise<string> {
  const created = await target.inject({ method: 'POST', url: '/api/conversations', headers: user.headers, payload: {} })
  expect(created.statusCode, created.body).toBe(201)
  const { id } = ConversationSchema.parse(created.json())
  for (const text of texts) {
    const sent = await target.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: user.headers, payload: { text } })
    expect(sent.statusCode, sent.body).toBe(201)
  }
  return id
}

const currentFacts = async (userId: string) =>
  (await app.db.select({ statement: memoryFacts.statement, validTo: memoryFacts.validTo }).from(memoryFacts).where(eq(memoryFacts.userId, userId))).filter((fact) => fact.validTo === null).map((fact) => fact.statement)

describe('a chat, once quiet for 10 minutes', () => {
  it('is extracted by one turn of the chat assistant: its episode and the facts the person said, never crisis words or an inferred health fact', async () => {
    const dana = await signedInUser(app, { paid: 'premium', fullName: 'Dana Lee' })
    const id = await chat(app, dana, ['My daughter starts school Monday.', 'And I hurt my knee running.'])
    // Nine minutes on, nothing yet: the chat is not quiet long enough.
    await advance(app, timers, clock, 9 * 60_000)
    expect(fake.chatBodies().filter((body) => String(body.input).startsWith(CHAT_EXTRACTION_PROMPT))).toHaveLength(0)
    await advance(app, timers, clock, 60_000)

    const extractions = fake.chatBodies().filter((body) => String(body.input).startsWith(CHAT_EXTRACTION_PROMPT))
    // One run for the chat's last message (the first message's run found a later one and stood down).
    expect(extractions).toHaveLength(1)
    expect(String(extractions[0]!.input)).toContain('Them: And I hurt my knee running.')
    expect((await currentFacts(dana.user.id)).sort()).toEqual(['Her daughter starts school on Monday', 'Hurt her left knee running'])
    const [episode] = await app.db.select().from(memoryEpisodes).where(and(eq(memoryEpisodes.userId, dana.user.id), eq(memoryEpisodes.sourceId, id)))
    expect(episode).toMatchObject({ channel: 'chat', summary: 'Dana talked about her week and her knee.' })

    // The next chat turn reads the brief, ranked by its words.
    await chat(app, dana, ['How should I train this week?'])
    const turn = fake.chatBodies().at(-1)!
    const brief = String((turn.assistantOverrides as { variableValues: Record<string, string> }).variableValues.coachBrief)
    expect(brief).toContain('Her daughter starts school on Monday')
    expect(brief).toContain('Dana talked about her week and her knee.')
  })

  it('is extracted once: the same run again adds nothing, and a chat that goes on is read from where the last run stopped', async () => {
    const kai = await signedInUser(app, { paid: 'premium', fullName: 'Kai Moss' })
    const id = await chat(app, kai, ['My daughter starts school Monday.'])
    await advance(app, timers, clock, 11 * 60_000)
    const [row] = await app.db.select().from(memoryExtractions).where(eq(memoryExtractions.userId, kai.user.id))
    const messageId = row!.key.split(':')[1]!
    expect(await app.services.memory.extractChat(kai.user.id, id, messageId)).toBeNull()
    expect(await app.services.memory.record({ userId: kai.user.id, channel: 'chat', sourceId: id, key: row!.key, occurredAt: clock.now().toISOString(), summary: 'again', learned: [{ statement: 'Owns a boat', subject: 'fun', stated: true }], changed: [] })).toMatchObject({ applied: false })
    expect(await currentFacts(kai.user.id)).not.toContain('Owns a boat')

    extractionReply = JSON.stringify({ summary: 'Kai moved the race.', factsLearned: [], factsChanged: [{ previous: 'Her daughter starts school on Monday', statement: 'Her daughter starts school on Wednesday', subject: 'family', stated: true }] })
    const more = await app.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: kai.headers, payload: { text: 'Actually school starts Wednesday.' } })
    expect(more.statusCode).toBe(201)
    await advance(app, timers, clock, 11 * 60_000)
    const second = fake.chatBodies().filter((body) => String(body.input).startsWith(CHAT_EXTRACTION_PROMPT)).at(-1)!
    expect(String(second.input)).toContain('Them: Actually school starts Wednesday.')
    expect(String(second.input)).not.toContain('Them: My daughter starts school Monday.')
    expect((await currentFacts(kai.user.id)).sort()).toEqual(['Her daughter starts school on Wednesday', 'Hurt her left knee running'])
    const [old] = await app.db.select().from(memoryFacts).where(and(eq(memoryFacts.userId, kai.user.id), eq(memoryFacts.statement, 'Her daughter starts school on Monday')))
    expect(old!.validTo).not.toBeNull()
    expect(old!.supersededBy).not.toBeNull()
  })

  it('is retried when Vapi fails, and the reply to the person never waited for it', async () => {
    const lee = await signedInUser(app, { paid: 'premium', fullName: 'Lee Park' })
    await chat(app, lee, ['My daughter starts school Monday.'])
    fake.inject('POST /chat', { kind: 'status', status: 503 })
    await advance(app, timers, clock, 10 * 60_000)
    expect(await currentFacts(lee.user.id)).toEqual([])
    // The job's backoff: its next try a minute on.
    await advance(app, timers, clock, 5 * 60_000)
    expect((await currentFacts(lee.user.id)).sort()).toEqual(['Her daughter starts school on Monday', 'Hurt her left knee running'])
  })

  it('keeps no fact from a reply that only repeats the instruction, and the episode in the person\'s words', async () => {
    const ivy = await signedInUser(app, { paid: 'premium', fullName: 'Ivy Chen' })
    extractionReply = CHAT_EXTRACTION_PROMPT
    const id = await chat(app, ivy, ['I started a new job this week.'])
    await advance(app, timers, clock, 11 * 60_000)
    expect(await currentFacts(ivy.user.id)).toEqual([])
    const [episode] = await app.db.select().from(memoryEpisodes).where(and(eq(memoryEpisodes.userId, ivy.user.id), eq(memoryEpisodes.sourceId, id)))
    expect(episode!.summary).toContain('I started a new job this week.')
  })

  it('without Vapi (the fallback coach) keeps the episode only', async () => {
    const ana = await signedInUser(fallback, { paid: 'premium', fullName: 'Ana Ruiz' })
    fallback.services.chat.settings.fallbackDelayMs = 0
    await chat(fallback, ana, ['My daughter starts school Monday.'])
    await advance(fallback, fallbackTimers, fallbackClock, 11 * 60_000)
    const episodes = await fallback.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, ana.user.id))
    expect(episodes).toHaveLength(1)
    expect(episodes[0]!.summary).toContain('My daughter starts school Monday.')
    expect(await fallback.db.select().from(memoryFacts).where(eq(memoryFacts.userId, ana.user.id))).toEqual([])
  })

  it('keeps nothing while the person paused the memory, and the brief is their goals only', async () => {
    const sam = await signedInUser(app, { paid: 'premium', fullName: 'Sam Ito' })
    await app.services.memory.setPaused(sam.user.id, true)
    await chat(app, sam, ['My daughter starts school Monday.'])
    await advance(app, timers, clock, 11 * 60_000)
    expect(await currentFacts(sam.user.id)).toEqual([])
    expect(await app.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, sam.user.id))).toEqual([])
    const brief = await app.services.memory.brief(sam.user.id)
    expect(brief).toMatchObject({ paused: true, facts: [], episodes: [] })
    expect(brief!.text).toContain('Goals:')
  })
})
