/**
 * The coach's memory of each person (docs/decisions/083): facts with validity intervals and
 * episodes, written from every channel by jobs (idempotent per source), read as one coach brief by
 * the phone calls, the voice calls in the app and every chat turn, and the person's to see, correct,
 * delete and pause on `/memory`.
 */
import { and, desc, eq, inArray, isNull, like, sql } from 'drizzle-orm'
import { z } from 'zod'
import { MEMORY_SOURCE_LABELS, type MemoryView } from '#common/memory'
import type { SavedMessage } from '#common/chat'
import type { Db } from '#server/db/client'
import { conversations, memoryEpisodes, memoryExtractions, memoryFacts, memoryPauses, profiles } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { jobContract, type JobQueue } from '#server/lib/job-contract'
import type { VapiChatClient } from '#server/integrations/vapi'
import { buildBrief, day, type CoachBrief } from './brief'
import { ExtractedFacts, MemoryRecordPayload, type MemoryRecord } from './extraction'
import { applyRecord, forgetFacts, inPause, pausesOf, supersede, type RecordOutcome } from './store'

export { BRIEF_TOKEN_BUDGET, buildBrief, tokensOf, type CoachBrief } from './brief'
export { ExtractedFacts, FACTS_SCHEMA_PROPERTIES, MemoryRecordPayload, type Extracted } from './extraction'
export { applyRecord } from './store'

/** A chat is extracted once it has been quiet this long. */
const CHAT_QUIET_MS = 10 * 60_000
/** The messages of one chat extraction at most (the newest). */
const CHAT_MESSAGES_READ = 60
const EPISODES_SHOWN = 50

export const MEMORY_JOBS = {
  /** One source's episode and facts, applied once (its key). */
  record: jobContract('memory-record', MemoryRecordPayload),
  /** A chat conversation, once quiet: one extraction turn, then a memory-record. */
  extractChat: jobContract('memory-extract-chat', z.object({ userId: z.uuid(), conversationId: z.uuid(), messageId: z.string().min(1).max(100) }).strict()),
} as const
export type MemoryJob = (typeof MEMORY_JOBS)[keyof typeof MEMORY_JOBS]
type MemoryJobQueue = JobQueue<MemoryJob>

/**
 * The fixed instruction of a chat's extraction turn: JSON only, the same fields as a call report's.
 * Its shape has placeholders, not values, so a reply that only repeats it parses to nothing.
 */
export const CHAT_EXTRACTION_PROMPT = `You are updating your memory of this person after a chat. Read the chat below and answer with JSON only, no other words, of this shape:
{"summary": <two or three sentences, third person, what they talked about>, "factsLearned": [{"statement": <the fact>, "subject": <its subject>, "stated": <true or false>}], "factsChanged": [{"previous": <the old fact>, "statement": <the new fact>, "subject": <its subject>, "stated": <true or false>}]}
factsLearned: new, lasting facts about them that a coach should remember, each short, in the third person. factsChanged: facts from "What you remember" that they said have changed (previous in the words of that list). subject is one of faith, family, fitness, finance, friends, fun, service, personal_development, health, work, preferences, other. Leave out anything about suicide, self-harm or a crisis, and any health detail they did not say themselves. Empty lists when there is nothing.

The chat:
`

const ChatExtractionReply = z.object({ summary: z.string().max(4000).nullable().optional() }).loose()

type MemoryDeps = {
  db: Db
  clock: Clock
  jobs: MemoryJobQueue
  /** The chat assistant, for a chat's extraction turn (without Vapi, the episode only is kept). */
  vapiChat: VapiChatClient | undefined
  /** The coach's variables for the extraction turn (the chat's own). */
  variablesOf(userId: string, brief: CoachBrief): Promise<Record<string, string>>
}

function originOf(source: keyof typeof MEMORY_SOURCE_LABELS, at: Date, zone: string): string {
  return `from ${MEMORY_SOURCE_LABELS[source]} on ${day(at, zone)}`
}

/** The JSON object in a model's reply (it may wrap it in words or a code fence). */
function jsonIn(reply: string): unknown {
  const start = reply.indexOf('{')
  const end = reply.lastIndexOf('}')
  if (start < 0 || end <= start) return null
  try {
    return JSON.parse(reply.slice(start, end + 1))
  } catch {
    return null
  }
}

/** A chat's episode when no model can summarise it: what the person opened with, in their words. */
function plainSummary(messages: readonly SavedMessage[]): string {
  const said = messages.filter((message) => message.sender === 'user').map((message) => message.text.replace(/\s+/g, ' ').trim())
  const first = said[0] ?? ''
  const opening = first.length > 300 ? `${first.slice(0, 299)}…` : first
  return `They chatted with the coach (${said.length} message${said.length === 1 ? '' : 's'}), starting with: “${opening}”`
}

export function createMemory(deps: MemoryDeps) {
  const { db, clock } = deps

  const zoneOf = async (userId: string) => {
    const [row] = await db.select({ timezone: profiles.timezone }).from(profiles).where(eq(profiles.id, userId))
    return row?.timezone ?? 'America/New_York'
  }

  const record = (payload: MemoryRecord): Promise<RecordOutcome> => db.transaction((tx) => applyRecord(tx, payload))

  return {
    /** Applies a source's extraction now (the memory-record job's work). */
    record,
    /** Hands a source's extraction to the memory-record job (never blocks the caller's reply). */
    async enqueue(payload: MemoryRecord): Promise<void> {
      await deps.jobs.enqueue('memory-record', MemoryRecordPayload.parse(payload), { jobId: `memory-${payload.channel}-${payload.key}` })
    },
    /** After each stored chat turn: the extraction once the chat has been quiet for 10 minutes. */
    async chatTurnStored(userId: string, conversationId: string, messageId: string): Promise<void> {
      await deps.jobs.enqueue('memory-extract-chat', { userId, conversationId, messageId }, { delayMs: CHAT_QUIET_MS, jobId: `memory-chat-${conversationId}-${messageId}` })
    },
    /**
     * A chat's extraction: when `messageId` is still its last message (a later turn has its own
     * run), the messages since the last extraction, summarised and mined for facts by one turn of
     * the chat assistant; the fallback coach keeps the episode only.
     */
    async extractChat(userId: string, conversationId: string, messageId: string): Promise<RecordOutcome | null> {
      const [row] = await db
        .select({ content: conversations.content, updatedAt: conversations.updatedAt })
        .from(conversations)
        .where(and(eq(conversations.id, conversationId), eq(conversations.userId, userId)))
      if (!row) return null
      const content = row.content as SavedMessage[]
      const last = content.at(-1)
      if (!last || last.id !== messageId) return null
      const [previous] = await db
        .select({ key: memoryExtractions.key })
        .from(memoryExtractions)
        .where(and(eq(memoryExtractions.userId, userId), eq(memoryExtractions.channel, 'chat'), like(memoryExtractions.key, `${conversationId}:%`)))
        .orderBy(desc(memoryExtractions.extractedAt))
        .limit(1)
      const since = previous ? content.findIndex((message) => message.id === previous.key.slice(conversationId.length + 1)) + 1 : 0
      // What was said during a pause is never read.
      const pauses = await pausesOf(db, userId)
      const messages = content
        .slice(since)
        .filter((message) => !inPause(pauses, new Date(message.timestamp)))
        .slice(-CHAT_MESSAGES_READ)
      if (!messages.some((message) => message.sender === 'user')) return null
      const base = { userId, channel: 'chat' as const, sourceId: conversationId, key: `${conversationId}:${messageId}`, occurredAt: new Date(last.timestamp).toISOString() }
      if (!deps.vapiChat) return record({ ...base, summary: plainSummary(messages), learned: [], changed: [] })
      const brief = (await buildBrief(db, userId, clock.now())) ?? null
      const transcript = messages.map((message) => `${message.sender === 'user' ? 'Them' : 'You'}: ${message.text}`).join('\n')
      const reply = await deps.vapiChat.createChat({
        input: `${CHAT_EXTRACTION_PROMPT}${transcript}`,
        previousChatId: null,
        variableValues: brief ? await deps.variablesOf(userId, brief) : {},
      })
      const json = jsonIn(reply.text)
      const facts = ExtractedFacts.parse(json)
      const summary = ChatExtractionReply.safeParse(json)
      return record({ ...base, summary: (summary.success && summary.data.summary?.trim()) || plainSummary(messages), ...facts })
    },
    /** The coach brief for every channel; `query` is the current turn's words where there is one. */
    brief: (userId: string, query: string | null = null) => buildBrief(db, userId, clock.now(), query),
    /** What `/memory` shows: every current fact with where it came from, and the episodes. */
    async view(userId: string): Promise<MemoryView> {
      const [zone, open, facts, episodes] = await Promise.all([
        zoneOf(userId),
        db.select({ id: memoryPauses.id }).from(memoryPauses).where(and(eq(memoryPauses.userId, userId), isNull(memoryPauses.resumedAt))),
        db
          .select()
          .from(memoryFacts)
          .where(and(eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo)))
          .orderBy(memoryFacts.subject, desc(memoryFacts.validFrom)),
        db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, userId)).orderBy(desc(memoryEpisodes.occurredAt)).limit(EPISODES_SHOWN),
      ])
      return {
        paused: open.length > 0,
        facts: facts.map((fact) => ({
          id: fact.id,
          statement: fact.statement,
          subject: fact.subject,
          source: fact.sourceChannel,
          origin: originOf(fact.sourceChannel, fact.validFrom, zone),
          validFrom: fact.validFrom.toISOString(),
        })),
        episodes: episodes.map((episode) => ({ id: episode.id, channel: episode.channel, summary: episode.summary, occurredAt: episode.occurredAt.toISOString() })),
      }
    },
    /** The person's correction: a new fact in their words that supersedes the old one. */
    async correct(userId: string, factId: string, input: { statement: string; subject?: MemoryView['facts'][number]['subject'] | undefined }): Promise<void> {
      const now = clock.now()
      await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('memory'), hashtext(${userId}))`)
        const [fact] = await tx
          .select()
          .from(memoryFacts)
          .where(and(eq(memoryFacts.id, factId), eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo)))
        if (!fact) throw new AppError('NOT_FOUND', 'Your coach does not remember that (it may have changed already).', { field: 'factId' })
        const [added] = await tx
          .insert(memoryFacts)
          .values({ userId, statement: input.statement.trim(), subject: input.subject ?? fact.subject, sourceChannel: 'person', sourceId: fact.id, validFrom: now })
          .returning({ id: memoryFacts.id })
        await supersede(tx, userId, fact.id, added!.id, now)
      })
    },
    /** Deletes a fact for good (with the versions it replaced); no processing of its source brings it back. */
    async forget(userId: string, factId: string): Promise<void> {
      const now = clock.now()
      await db.transaction(async (tx) => {
        const columns = { id: memoryFacts.id, statement: memoryFacts.statement, sourceChannel: memoryFacts.sourceChannel, sourceId: memoryFacts.sourceId }
        const facts = await tx.select(columns).from(memoryFacts).where(and(eq(memoryFacts.id, factId), eq(memoryFacts.userId, userId)))
        // The versions it replaced, back to the first (a chain is a handful long).
        for (let wave = facts.map((fact) => fact.id); wave.length > 0; ) {
          const older = await tx.select(columns).from(memoryFacts).where(and(eq(memoryFacts.userId, userId), inArray(memoryFacts.supersededBy, wave)))
          facts.push(...older)
          wave = older.map((fact) => fact.id)
        }
        if (facts.length === 0) throw new AppError('NOT_FOUND', 'Your coach does not remember that.', { field: 'factId' })
        await forgetFacts(tx, userId, facts, now)
      })
    },
    /** Deletes every fact and episode; the sources already read are never read again. */
    async forgetAll(userId: string): Promise<void> {
      const now = clock.now()
      await db.transaction(async (tx) => {
        const facts = await tx
          .select({ id: memoryFacts.id, statement: memoryFacts.statement, sourceChannel: memoryFacts.sourceChannel, sourceId: memoryFacts.sourceId })
          .from(memoryFacts)
          .where(eq(memoryFacts.userId, userId))
        await forgetFacts(tx, userId, facts, now)
        await tx.delete(memoryEpisodes).where(eq(memoryEpisodes.userId, userId))
      })
    },
    /** Pauses or resumes the memory: paused, the coach works from the goals only and nothing new is kept. */
    async setPaused(userId: string, paused: boolean): Promise<void> {
      const now = clock.now()
      // One open pause at most (a partial unique index): pausing twice keeps the first start.
      if (paused) await db.insert(memoryPauses).values({ userId, pausedAt: now }).onConflictDoNothing()
      else await db.update(memoryPauses).set({ resumedAt: now }).where(and(eq(memoryPauses.userId, userId), isNull(memoryPauses.resumedAt)))
    },
  }
}

export type Memory = ReturnType<typeof createMemory>
