/**
 * Writing the memory (docs/decisions/083): one source's extraction applied once, in one
 * transaction: its episode, its new facts, and the facts it replaces closed and linked to the new
 * ones. What the person deleted never comes back from the same source; crisis words are never kept;
 * a health fact is kept only when the person said it; nothing is written while memory is paused.
 */
import { createHash } from 'node:crypto'
import { and, desc, eq, gte, isNotNull, isNull, or, sql } from 'drizzle-orm'
import { isCrisisMessage } from '#common/texts'
import type { MemorySource, MemorySubject } from '#common/memory'
import type { DbExecutor } from '#server/db/client'
import { memoryEpisodes, memoryExtractions, memoryFacts, memoryForgotten, memoryPauses } from '#server/db/schema'
import { similarity } from '#server/services/commitments'
import type { MemoryRecord } from './extraction'

/** Words this alike are one fact said again (kept once). */
const SAME_FACT = 0.9
/** A changed fact's `previous` names the current fact whose words are at least this alike. */
const SAME_PREVIOUS = 0.5

/** A fact's words reduced for comparing and fingerprinting: case, accents, punctuation and spacing ignored. */
function normalizedStatement(statement: string): string {
  return statement
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ')
}

/** What a deleted fact leaves: a fingerprint of its words, never the words. */
function fingerprintOf(statement: string): string {
  return createHash('sha256').update(normalizedStatement(statement)).digest('hex')
}

type Pause = { pausedAt: Date; resumedAt: Date | null }

/** The person's pauses, newest first. */
export async function pausesOf(db: DbExecutor, userId: string): Promise<Pause[]> {
  return db.select({ pausedAt: memoryPauses.pausedAt, resumedAt: memoryPauses.resumedAt }).from(memoryPauses).where(eq(memoryPauses.userId, userId)).orderBy(desc(memoryPauses.pausedAt))
}

/** Whether `at` falls in a pause (one still open covers everything from its start). */
export function inPause(pauses: readonly Pause[], at: Date): boolean {
  return pauses.some((pause) => pause.pausedAt.getTime() <= at.getTime() && (pause.resumedAt === null || at.getTime() < pause.resumedAt.getTime()))
}

/**
 * The crisis matcher reads the person's own words ("kill myself", "end my life"); a model writes
 * facts and summaries in the third person ("has thought about ending their life"), so those are
 * read a second time turned into the first person.
 */
const FIRST_PERSON: ReadonlyArray<[RegExp, string]> = [
  [/\b(themselves|themself|himself|herself)\b/gi, 'myself'],
  [/\b(their|his|her)\b/gi, 'my'],
  [/\b(they|he|she)\b/gi, 'I'],
  [/\b(wants|wanted|wanting)\b/gi, 'want'],
  [/\b(ending|ends|ended)\b/gi, 'end'],
  [/\b(took|takes|taking)\b/gi, 'take'],
  [/\b(does|did)\b/gi, 'do'],
  [/\b(doesn|didn)(?=['’]t\b)/gi, 'don'],
]
function speaksOfCrisis(text: string): boolean {
  return isCrisisMessage(text) || isCrisisMessage(FIRST_PERSON.reduce((said, [pattern, word]) => said.replace(pattern, word), text))
}

/** Whether a fact may be kept at all: never crisis words, never a health fact the person did not say. */
function keepable(fact: { statement: string; subject: MemorySubject; stated: boolean }): boolean {
  if (speaksOfCrisis(fact.statement)) return false
  if (fact.subject === 'health' && !fact.stated) return false
  return true
}

type CurrentFact = { id: string; statement: string; subject: MemorySubject }

/** The current fact `previous` names: the closest in words (the same subject first), or none. */
function factNamed(current: readonly CurrentFact[], previous: string, subject: MemorySubject): CurrentFact | null {
  let best: CurrentFact | null = null
  let bestScore = 0
  const wanted = normalizedStatement(previous)
  for (const fact of current) {
    const score = normalizedStatement(fact.statement) === wanted ? 2 : similarity(fact.statement, previous) + (fact.subject === subject ? 0.05 : 0)
    if (score > bestScore) {
      best = fact
      bestScore = score
    }
  }
  return bestScore >= SAME_PREVIOUS ? best : null
}

export type RecordOutcome = { applied: boolean; paused: boolean; added: number; superseded: number; dropped: number }

/** Applies one extraction (once per its key). */
export async function applyRecord(tx: DbExecutor, record: MemoryRecord): Promise<RecordOutcome> {
  const outcome: RecordOutcome = { applied: false, paused: false, added: 0, superseded: 0, dropped: 0 }
  // One extraction of a person's memory at a time: a correction and an extraction never race.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('memory'), hashtext(${record.userId}))`)
  const at = new Date(record.occurredAt)
  const claimed = await tx
    .insert(memoryExtractions)
    .values({ userId: record.userId, channel: record.channel, key: record.key })
    .onConflictDoNothing()
    .returning({ key: memoryExtractions.key })
  if (claimed.length === 0) return outcome
  // Paused now, or said during a pause: nothing of it is kept, and its key stays claimed so no
  // retry after the person resumes brings it in.
  const pauses = await pausesOf(tx, record.userId)
  if (pauses.some((pause) => pause.resumedAt === null) || inPause(pauses, at)) return { ...outcome, paused: true }
  outcome.applied = true

  const summary = record.summary?.trim()
  if (summary && !speaksOfCrisis(summary)) {
    await tx
      .insert(memoryEpisodes)
      .values({ userId: record.userId, channel: record.channel, sourceId: record.sourceId, summary, occurredAt: at })
      .onConflictDoUpdate({ target: [memoryEpisodes.userId, memoryEpisodes.channel, memoryEpisodes.sourceId], set: { summary, occurredAt: at } })
  }

  const forgotten = new Set(
    (
      await tx
        .select({ fingerprint: memoryForgotten.fingerprint })
        .from(memoryForgotten)
        // This source's deleted facts, and every fact deleted after this source was said (it may have
        // repeated one the person deleted from another source: their deletion covers it too).
        .where(
          and(
            eq(memoryForgotten.userId, record.userId),
            or(and(eq(memoryForgotten.sourceChannel, record.channel), eq(memoryForgotten.sourceId, record.sourceId)), gte(memoryForgotten.forgottenAt, at)),
          ),
        )
    ).map((row) => row.fingerprint),
  )
  const current: CurrentFact[] = await tx
    .select({ id: memoryFacts.id, statement: memoryFacts.statement, subject: memoryFacts.subject })
    .from(memoryFacts)
    .where(and(eq(memoryFacts.userId, record.userId), isNull(memoryFacts.validTo)))
    .orderBy(desc(memoryFacts.validFrom))
  // Facts already replaced: this source said them before, or they were replaced after it was said
  // (a source processed again, or late): saying them again does not make them current again.
  const replaced = await tx
    .select({ statement: memoryFacts.statement, sourceChannel: memoryFacts.sourceChannel, sourceId: memoryFacts.sourceId, validTo: memoryFacts.validTo })
    .from(memoryFacts)
    .where(and(eq(memoryFacts.userId, record.userId), isNotNull(memoryFacts.validTo)))
  const sameWords = (a: string, b: string) => similarity(a, b) >= SAME_FACT || normalizedStatement(a) === normalizedStatement(b)
  const replacedSince = (statement: string) =>
    replaced.some((old) => ((old.sourceChannel === record.channel && old.sourceId === record.sourceId) || old.validTo! >= at) && sameWords(old.statement, statement))

  const allowed = (fact: { statement: string; subject: MemorySubject; stated: boolean }) => {
    if (!keepable(fact) || forgotten.has(fingerprintOf(fact.statement))) {
      outcome.dropped++
      return false
    }
    return true
  }
  const insertFact = async (fact: { statement: string; subject: MemorySubject }) => {
    const [row] = await tx
      .insert(memoryFacts)
      .values({ userId: record.userId, statement: fact.statement, subject: fact.subject, sourceChannel: record.channel, sourceId: record.sourceId, validFrom: at })
      .returning({ id: memoryFacts.id })
    current.unshift({ id: row!.id, statement: fact.statement, subject: fact.subject })
    outcome.added++
    return row!.id
  }

  for (const change of record.changed) {
    if (!allowed(change)) continue
    const old = factNamed(current, change.previous, change.subject)
    if (old && normalizedStatement(old.statement) === normalizedStatement(change.statement)) continue
    const id = await insertFact(change)
    if (old) {
      await supersede(tx, record.userId, old.id, id, at)
      current.splice(current.indexOf(old), 1)
      outcome.superseded++
    }
  }
  for (const fact of record.learned) {
    if (!allowed(fact)) continue
    // Said again: the memory has it already.
    if (current.some((known) => sameWords(known.statement, fact.statement))) continue
    if (replacedSince(fact.statement)) continue
    await insertFact(fact)
  }
  await tx
    .update(memoryExtractions)
    .set({ facts: outcome.added })
    .where(and(eq(memoryExtractions.userId, record.userId), eq(memoryExtractions.channel, record.channel), eq(memoryExtractions.key, record.key)))
  return outcome
}

/** Closes a fact: it stops being current at `at`, replaced by `by`. */
export async function supersede(tx: DbExecutor, userId: string, id: string, by: string, at: Date): Promise<void> {
  await tx
    .update(memoryFacts)
    .set({ validTo: sql`greatest(${memoryFacts.validFrom}, ${at.toISOString()}::timestamptz)`, supersededBy: by })
    .where(and(eq(memoryFacts.id, id), eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo)))
}

/** Deletes facts for good and remembers their fingerprints per source, so no re-extraction brings them back. */
export async function forgetFacts(tx: DbExecutor, userId: string, facts: ReadonlyArray<{ id: string; statement: string; sourceChannel: MemorySource; sourceId: string }>, at: Date): Promise<void> {
  if (facts.length === 0) return
  await tx
    .insert(memoryForgotten)
    .values(facts.map((fact) => ({ userId, sourceChannel: fact.sourceChannel, sourceId: fact.sourceId, fingerprint: fingerprintOf(fact.statement), forgottenAt: at })))
    .onConflictDoNothing()
  for (const fact of facts) await tx.delete(memoryFacts).where(and(eq(memoryFacts.id, fact.id), eq(memoryFacts.userId, userId)))
}

