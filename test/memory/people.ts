/**
 * The people of the memory evaluation (issue 37): a user with a profile and goals written straight
 * to the database, and the history of two years of coaching (daily call episodes, chats, texts,
 * voice sessions, coach sessions, a few hundred facts of which many were superseded, calls and
 * commitments) bulk-inserted as rows, for the brief's build time (scripts/eval-memory.ts, the bench).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { MemoryChannel, MemorySubject } from '#common/memory'
import type { Db } from '#server/db/client'
import { commitments, coachingCalls, goals, memoryEpisodes, memoryExtractions, memoryFacts, profiles, users } from '#server/db/schema'

export type Person = { name: string; timezone?: string; dailyCallTime?: string }

/** A member with a profile and rated goals (the brief's head: who they are and their goals). */
export async function insertPerson(db: Db, person: Person): Promise<string> {
  const now = new Date('2026-01-01T00:00:00Z')
  const [user] = await db
    .insert(users)
    .values({
      email: `memory-eval-${randomBytes(5).toString('hex')}@example.com`,
      passwordHash: 'memory-eval-no-password',
      fullName: person.name,
      phoneNumber: '2025550100',
      communicationConsentVersion: '2026-11-01',
      communicationConsentAt: now,
      termsAcceptedAt: now,
    })
    .returning({ id: users.id })
  const id = user!.id
  await db.insert(profiles).values({ id, name: person.name, timezone: person.timezone ?? 'America/Chicago', dailyCallTime: person.dailyCallTime ?? '07:30', onboardingCompleted: true })
  await db.insert(goals).values([
    { userId: id, lifeArea: 'fitness', satisfactionScore: 4, customNotes: 'Wants to run without stopping' },
    { userId: id, lifeArea: 'family', satisfactionScore: 7 },
    { userId: id, lifeArea: 'finance', satisfactionScore: 5 },
    { userId: id, lifeArea: 'personal_development', satisfactionScore: 6 },
    {
      userId: id,
      lifeArea: 'specific_goals',
      specificGoals: { goal_90_days: 'Exercise four times a week', goal_12_months: 'Pay off the car loan', goal_5_years: 'Own a small bakery', obstacles: 'Long shifts and little sleep' },
    },
  ])
  return id
}

// ---- Generated facts ----------------------------------------------------------------------------

const NAMES = ['Ana', 'Ben', 'Chloe', 'Dev', 'Emeka', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jun', 'Kira', 'Luis', 'Mina', 'Noor', 'Otto', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tess']
const CITIES = ['Tulsa', 'Boise', 'Omaha', 'Reno', 'Fresno', 'Akron', 'Dayton', 'Laredo', 'Spokane', 'Mobile', 'Provo', 'Salem']
const HOBBIES = ['pottery', 'birdwatching', 'chess', 'salsa dancing', 'woodworking', 'crosswords', 'gardening', 'baking sourdough', 'rock climbing', 'painting', 'fishing', 'board games']
const DAYS = ['Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays']
const RELATIONS = ['cousin', 'aunt', 'uncle', 'brother', 'sister', 'niece', 'nephew', 'godson']
const PLACES = ['food bank', 'animal shelter', 'library', 'community garden', 'soup kitchen', 'youth center']
const BOOKS = ['Atomic Habits', 'Deep Work', 'Mindset', 'Grit', 'Range', 'Drive', 'Quiet', 'Essentialism']
const PURPOSES = ['a trip to Lisbon', 'a new roof', 'a used pickup', 'a wedding', 'braces for a kid', 'an emergency fund']

const pick = <T>(list: readonly T[], n: number) => list[n % list.length]!

/**
 * The n-th filler fact of a person's long history: many subjects, each wording distinct enough not
 * to be taken for another (the memory keeps a fact said again once).
 */
export function fillerFact(n: number): { statement: string; subject: MemorySubject } {
  const k = Math.floor(n / 7)
  switch (n % 7) {
    case 0:
      return { statement: `Their ${pick(RELATIONS, k)} ${pick(NAMES, k * 3 + 1)} lives in ${pick(CITIES, k * 5 + 2)}`, subject: 'family' }
    case 1:
      return { statement: `Enjoys ${pick(HOBBIES, k)} on ${pick(DAYS, k * 2 + 1)} with ${pick(NAMES, k + 7)}`, subject: 'fun' }
    case 2:
      return { statement: `Volunteers at the ${pick(PLACES, k)} in ${pick(CITIES, k + 3)} every ${pick(['month', 'other week', 'quarter'], k)}`, subject: 'service' }
    case 3:
      return { statement: `Is reading ${pick(BOOKS, k)} chapter ${(k % 20) + 1} with a group led by ${pick(NAMES, k + 11)}`, subject: 'personal_development' }
    case 4:
      return { statement: `Puts ${(k % 9) + 1}00 dollars a month aside for ${pick(PURPOSES, k)} (plan ${k + 1})`, subject: 'finance' }
    case 5:
      return { statement: `Meets ${pick(NAMES, k + 5)} from ${pick(CITIES, k + 7)} for coffee on ${pick(DAYS, k)}`, subject: 'friends' }
    default:
      return { statement: `Keeps a ${pick(['gratitude', 'dream', 'prayer', 'food', 'sleep'], k)} journal number ${k + 1} by the bed`, subject: 'other' }
  }
}

// ---- Two years of history -------------------------------------------------------------------------

const DAY_MS = 86_400_000
const CALL_SUMMARIES = [
  'They checked in on the morning routine, rated energy as steady, and agreed to a 20 minute walk after lunch.',
  'A short call: work ran late, sleep was poor, and they chose one small task for the evening instead of three.',
  'They reviewed the week budget, found two subscriptions to cancel, and planned groceries for the weekend.',
  'They talked through a tense conversation with a colleague and rehearsed what to say on Monday.',
  'Energy was high; they kept both commitments from yesterday and set a stretch goal for the long run.',
]

export type HistoryCounts = { episodes: number; facts: number; currentFacts: number; calls: number; commitments: number }

async function insertInBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size))
}

/**
 * Two years of a daily-call member up to `now`: 730 daily call episodes (and their calls, with two
 * commitments each, the last few open), 260 chat, 180 text, 100 voice and 24 coach session episodes,
 * and 480 facts: 160 chains of versions (each version superseded by the next) and 140 facts never
 * changed, so about 300 current and 180 superseded.
 */
export async function seedTwoYears(db: Db, userId: string, now: Date): Promise<HistoryCounts> {
  const start = now.getTime() - 730 * DAY_MS
  const episodes: Array<typeof memoryEpisodes.$inferInsert> = []
  const extractions: Array<typeof memoryExtractions.$inferInsert> = []
  const episode = (channel: MemoryChannel, sourceId: string, at: number, summary: string) => {
    episodes.push({ userId, channel, sourceId, summary, occurredAt: new Date(at) })
    extractions.push({ userId, channel, key: `${sourceId}:done`, facts: 1, extractedAt: new Date(at + 60_000) })
  }
  const calls: Array<typeof coachingCalls.$inferInsert & { id: string }> = []
  for (let d = 0; d < 730; d++) {
    const at = start + d * DAY_MS + 13.5 * 3_600_000
    const id = randomUUID()
    calls.push({
      id,
      userId,
      callDate: new Date(at),
      callDuration: 300 + (d % 240),
      completionStatus: 'completed',
      slot: 'daily',
      localDate: new Date(at).toISOString().slice(0, 10),
      timeZone: 'America/Chicago',
      summary: pick(CALL_SUMMARIES, d),
      mood: 1 + (d % 10),
    })
    episode('call', id, at + 600_000, `Day ${d + 1}. ${pick(CALL_SUMMARIES, d)} ${pick(CALL_SUMMARIES, d * 7 + 3)}`)
  }
  for (let i = 0; i < 260; i++) episode('chat', randomUUID(), start + Math.floor((i * 730 * DAY_MS) / 260) + 20 * 3_600_000, `A chat about ${pick(HOBBIES, i)} and the week ahead; they asked for a plan and chose ${pick(DAYS, i)} for it.`)
  for (let i = 0; i < 180; i++) episode('text', randomUUID(), start + Math.floor((i * 730 * DAY_MS) / 180) + 9 * 3_600_000, `They texted: ${pick(['running late today', 'did the walk!', 'can we move the call?', 'rough night, will try again', 'paid the card off this month'], i)}`)
  for (let i = 0; i < 100; i++) episode('voice', randomUUID(), start + Math.floor((i * 730 * DAY_MS) / 100) + 21 * 3_600_000, `A voice session in the app: a wind-down reflection on ${pick(HOBBIES, i + 3)} and sleep.`)
  for (let i = 0; i < 24; i++) episode('coach_session', randomUUID(), start + i * 30 * DAY_MS + 16 * 3_600_000, `A 1-on-1 with their coach: a monthly review of goals; next focus ${pick(['sleep', 'budget', 'strength', 'family time'], i)}.`)

  // Facts: chains of versions (a changed fact supersedes the one before) and facts never changed.
  const facts: Array<typeof memoryFacts.$inferInsert & { id: string }> = []
  let n = 0
  let current = 0
  for (let chain = 0; chain < 160; chain++) {
    const versions = 2 + (chain % 2)
    const ids = Array.from({ length: versions }, () => randomUUID())
    let at = start + chain * 4 * DAY_MS
    for (let v = 0; v < versions; v++) {
      const fact = fillerFact(n++)
      const next = at + (30 + (chain % 60)) * DAY_MS
      const last = v === versions - 1
      facts.push({
        id: ids[v]!,
        userId,
        statement: fact.statement,
        subject: fact.subject,
        sourceChannel: pick(['call', 'chat', 'text', 'voice'] as const, chain + v),
        sourceId: randomUUID(),
        validFrom: new Date(at),
        validTo: last ? null : new Date(next),
        supersededBy: last ? null : ids[v + 1]!,
      })
      if (last) current++
      at = Math.min(next, now.getTime() - DAY_MS)
    }
  }
  for (let i = 0; i < 140; i++) {
    const fact = fillerFact(n++)
    facts.push({ id: randomUUID(), userId, statement: fact.statement, subject: fact.subject, sourceChannel: pick(['call', 'chat', 'coach_session'] as const, i), sourceId: randomUUID(), validFrom: new Date(start + i * 5 * DAY_MS) })
    current++
  }
  const rows: Array<typeof commitments.$inferInsert> = calls.flatMap((call, d) =>
    [0, 1].map((position) => ({
      userId,
      callId: call.id,
      position,
      text: `${position === 0 ? 'Walk for 20 minutes' : 'Lights out by 10:30'} (day ${d + 1})`,
      status: d >= 727 ? ('open' as const) : position === 0 ? ('kept' as const) : ('missed' as const),
      madeAt: new Date(call.callDate!.getTime() + 900_000),
      ...(d >= 727 ? {} : { resolvedAt: new Date(call.callDate!.getTime() + DAY_MS), resolvedBy: 'call' as const }),
    })),
  )

  await insertInBatches(calls, (batch) => db.insert(coachingCalls).values(batch))
  await insertInBatches(rows, (batch) => db.insert(commitments).values(batch))
  await insertInBatches(episodes, (batch) => db.insert(memoryEpisodes).values(batch))
  await insertInBatches(extractions, (batch) => db.insert(memoryExtractions).values(batch))
  // Superseded rows point at later versions: the versions go in last first.
  await insertInBatches([...facts].reverse(), (batch) => db.insert(memoryFacts).values(batch))
  await db.execute(sql`analyze`)
  return { episodes: episodes.length, facts: facts.length, currentFacts: current, calls: calls.length, commitments: rows.length }
}

/** The words of a turn, for the timed briefs (a query as the chat and the voice call pass one). */
export const BRIEF_QUERIES: readonly (string | null)[] = [
  null,
  'I want to talk about my running plan for this week',
  'My cousin is visiting from Tulsa, how do I keep up my habits?',
  'money is tight this month, can we look at the budget',
  'I skipped the gym again',
  'what did we say about sleep last time?',
]
