/**
 * The coach brief (docs/decisions/083): one text every channel's coach reads about the person, built
 * from PostgreSQL on each use: who they are, their goals and scores, the current facts (superseded
 * ones left out), the last three episodes across every channel, the open commitments and what is
 * next. At most BRIEF_TOKEN_BUDGET tokens: the facts are ranked by the words of the current turn
 * (full-text search) and then by recency, and what does not fit is left out. With memory paused the
 * coach works from the goals only.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { MEMORY_SUBJECT_TITLES, type MemoryChannel, type MemorySubject } from '#common/memory'
import type { DbExecutor } from '#server/db/client'
import { coachSessions, memoryEpisodes, memoryFacts, memoryPauses, users } from '#server/db/schema'
import { coachContextJson, toCoachContext, type CoachContext } from '#server/services/chat'
import { openCommitmentsJson, type AskedCommitment } from '#server/services/commitments'

/** The brief's limit, in tokens (about four characters each). */
export const BRIEF_TOKEN_BUDGET = 1500
/** The facts read for one brief: the best-ranked this many (a brief holds far fewer). */
const FACTS_READ = 120
const EPISODES_IN_BRIEF = 3
const EPISODE_CHARS = 480
const GOALS_CHARS = 1400

/** A token estimate: four characters a token, as the models' tokenizers average on English. */
export const tokensOf = (text: string) => Math.ceil(text.length / 4)

const CHANNEL_NAMES: Record<MemoryChannel, string> = {
  call: 'phone call',
  voice: 'voice session in the app',
  chat: 'chat',
  text: 'text message',
  coach_session: '1-on-1 with their human coach',
}

export type BriefFact = { id: string; statement: string; subject: MemorySubject; validFrom: Date }
export type BriefEpisode = { channel: MemoryChannel; summary: string; occurredAt: Date }

export type CoachBrief = {
  text: string
  tokens: number
  paused: boolean
  /** The facts the brief holds (for tests and the evaluation). */
  facts: BriefFact[]
  episodes: BriefEpisode[]
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text)

/** One formatter per zone and kind (making one costs more than the rest of the brief's text). */
const formatters = new Map<string, Intl.DateTimeFormat>()
function formatter(zone: string, kind: 'day' | 'time'): Intl.DateTimeFormat {
  const key = `${kind} ${zone}`
  let format = formatters.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', kind === 'day' ? { weekday: 'short', month: 'short', day: 'numeric', timeZone: zone } : { hour: 'numeric', minute: '2-digit', timeZone: zone })
    formatters.set(key, format)
  }
  return format
}

/** "Tue, Mar 9" in the person's zone. */
export const day = (at: Date, zone: string) => formatter(zone, 'day').format(at)

/**
 * The current facts, best first: those sharing words with `query` (ranked by full-text search,
 * each word of the query may match), then the newest. The query's words become a tsquery of their
 * lexemes joined by OR inside PostgreSQL, so nothing typed is parsed as query syntax.
 */
async function currentFacts(db: DbExecutor, userId: string, query: string | null, limit = FACTS_READ): Promise<BriefFact[]> {
  const vector = sql`to_tsvector('english', ${memoryFacts.statement})`
  const newest = [desc(memoryFacts.validFrom), desc(memoryFacts.createdAt)]
  const order =
    query && query.trim()
      ? [desc(sql`coalesce(ts_rank(${vector}, (select nullif(array_to_string(array(select quote_literal(l) from unnest(tsvector_to_array(to_tsvector('english', ${query.slice(0, 2000)}))) l), ' | '), '')::tsquery)), 0)`), ...newest]
      : newest
  const rows = await db
    .select({ id: memoryFacts.id, statement: memoryFacts.statement, subject: memoryFacts.subject, validFrom: memoryFacts.validFrom })
    .from(memoryFacts)
    .where(and(eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo)))
    .orderBy(...order)
    .limit(limit)
  return rows
}

/** The brief's parts, before they are fitted to the budget. */
type BriefParts = {
  context: CoachContext
  paused: boolean
  facts: BriefFact[]
  episodes: BriefEpisode[]
  commitments: string[]
  nextSession: Date | null
}

/** A JSON column as the drivers hand it back: parsed, or text. */
const parsed = <T>(value: T | string | null): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

/**
 * Reads the brief's parts in two statements run side by side: the person (their context, the pause,
 * the last episodes, the open commitments and the next 1-on-1, as one row) and the ranked facts.
 * Null when the person does not exist.
 */
async function loadBriefParts(db: DbExecutor, userId: string, now: Date, query: string | null): Promise<BriefParts | null> {
  const [[row], facts] = await Promise.all([
    db
      .select({
        context: coachContextJson(userId),
        paused: sql<boolean>`exists (select 1 from ${memoryPauses} p where p.user_id = ${userId} and p.resumed_at is null)`,
        episodes: sql<Array<{ channel: MemoryChannel; summary: string; occurredAt: string }> | string | null>`(
          select json_agg(json_build_object('channel', e.channel, 'summary', e.summary, 'occurredAt', e.occurred_at) order by e.occurred_at desc)
          from (select channel, summary, occurred_at from ${memoryEpisodes} where user_id = ${userId} order by occurred_at desc limit ${EPISODES_IN_BRIEF}) e)`,
        commitments: openCommitmentsJson(userId),
        nextSession: sql<string | null>`(select min(s.starts_at) from ${coachSessions} s where s.member_user_id = ${userId} and s.status = 'booked' and s.starts_at > ${now.toISOString()}::timestamptz)`,
      })
      .from(users)
      .where(eq(users.id, userId)),
    currentFacts(db, userId, query),
  ])
  const context = row ? toCoachContext(userId, row.context, now) : null
  if (!row || !context) return null
  const paused = row.paused === true || (row.paused as unknown) === 't'
  const episodes = (parsed(row.episodes) ?? []).map((episode) => ({ channel: episode.channel, summary: episode.summary, occurredAt: new Date(episode.occurredAt) }))
  const commitments = (parsed(row.commitments as AskedCommitment[] | string | null) ?? []).map((commitment) => commitment.text)
  return { context, paused, facts: paused ? [] : facts, episodes: paused ? [] : episodes, commitments, nextSession: row.nextSession ? new Date(row.nextSession) : null }
}

/** Fits the parts into the budget: who they are and the goals first, then the facts by rank, then what happened and what is next. */
function composeBrief(parts: BriefParts, budget = BRIEF_TOKEN_BUDGET): CoachBrief {
  const { context, paused } = parts
  const zone = context.timezone
  const head = [`About ${context.name} (time zone ${zone}).`, `Goals: ${truncate(context.goalsSummary, GOALS_CHARS)}`]
  if (paused) {
    const text = head.join('\n')
    return { text, tokens: tokensOf(text), paused, facts: [], episodes: [] }
  }
  const tail: string[] = []
  if (parts.commitments.length > 0) tail.push(`Open commitments:\n${parts.commitments.map((c) => `- ${c}`).join('\n')}`)
  const next: string[] = []
  if (context.dailyCallTime) next.push(`daily call at ${context.dailyCallTime}`)
  if (parts.nextSession) next.push(`1-on-1 with their coach on ${day(parts.nextSession, zone)} at ${formatter(zone, 'time').format(parts.nextSession)}`)
  if (next.length > 0) tail.push(`Next: ${next.join('; ')}.`)

  const episodes: BriefEpisode[] = []
  const episodeLines: string[] = []
  for (const episode of parts.episodes) {
    episodes.push(episode)
    episodeLines.push(`- ${day(episode.occurredAt, zone)}, ${CHANNEL_NAMES[episode.channel]}: ${truncate(episode.summary, EPISODE_CHARS)}`)
  }
  const episodesText = episodeLines.length > 0 ? `Recently:\n${episodeLines.join('\n')}` : ''
  const fixed = [...head, episodesText, ...tail].filter(Boolean).join('\n')
  const header = 'What they have told you (current):'
  let left = budget - tokensOf(fixed) - tokensOf(header) - 2
  const facts: BriefFact[] = []
  for (const fact of parts.facts) {
    const line = `- ${fact.statement} [${MEMORY_SUBJECT_TITLES[fact.subject]}]`
    const cost = tokensOf(line) + 1
    if (cost > left) continue
    facts.push(fact)
    left -= cost
  }
  // Grouped by subject in the text (the rank chose which; the order reads better by subject).
  const bySubject = new Map<MemorySubject, BriefFact[]>()
  for (const fact of facts) bySubject.set(fact.subject, [...(bySubject.get(fact.subject) ?? []), fact])
  const factLines = [...bySubject.values()].flat().map((fact) => `- ${fact.statement} [${MEMORY_SUBJECT_TITLES[fact.subject]}]`)
  const sections = [...head, factLines.length > 0 ? `${header}\n${factLines.join('\n')}` : '', episodesText, ...tail].filter(Boolean)
  const text = sections.join('\n')
  return { text, tokens: tokensOf(text), paused, facts, episodes }
}

/** The brief for one person now; `query` is the current turn's words where there is one. */
export async function buildBrief(db: DbExecutor, userId: string, now: Date, query: string | null = null): Promise<CoachBrief | null> {
  const parts = await loadBriefParts(db, userId, now, query)
  return parts ? composeBrief(parts) : null
}
