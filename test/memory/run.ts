/**
 * The memory evaluation's runner (issue 37), shared by `npm run eval:memory` and
 * test/integration/memory-eval.test.ts. Each scenario is a person's sessions across channels: what
 * was said (the transcript) and what the fake model returns for it (summary, facts learned, facts
 * changed). The runner hands each output to the real memory (the channel's parse, then the
 * memory-record job's applyRecord through createMemory), performs the person's actions between
 * sessions (delete a fact by its words, correct one, delete everything, pause, a source processed
 * again with a new key), and checks the next brief: the current facts must be in it, the replaced
 * ones, the deleted ones and the crisis words never, and it stays within its budget.
 */
import { randomUUID } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { MemoryChannel, MemorySubject } from '#common/memory'
import type { Db } from '#server/db/client'
import { memoryEpisodes, memoryFacts } from '#server/db/schema'
import { BRIEF_TOKEN_BUDGET, buildBrief, createMemory, ExtractedFacts, MemoryRecordPayload, tokensOf, type CoachBrief, type Memory } from '#server/services/memory'
import { fillerFact, insertPerson, type Person } from './people'

export type ScenarioFact = { statement: string; subject: MemorySubject; stated?: boolean }
export type ScenarioChange = ScenarioFact & { previous: string }

/** What the person does between sessions (on `/memory`, or the system does: a source read again). */
export type ScenarioAction =
  /** Deletes the current fact with these words. */
  | { forget: string }
  /** Corrects the current fact with these words: the correction supersedes it. */
  | { correct: string; to: string; subject?: MemorySubject }
  | { forgetAll: true }
  | { pause: boolean }
  /** The source of session `reprocess` (0-based) processed again, with a new key and the same output. */
  | { reprocess: number }
  /** The same extraction delivered again (the job retried: the same key). */
  | { retry: number }
  /** Session `run`'s extraction job runs now, for the first time (it was `deferred`: a chat's runs 10 minutes after it went quiet). */
  | { run: number }

/** Checked on the brief built after the session and its actions. */
export type ScenarioExpect = {
  /** The words of the next turn (a chat message, the call's topic): the brief ranks facts by them. */
  query?: string
  /** Facts that must be in the brief. */
  current?: string[]
  /** Facts that were replaced: never in the brief. */
  stale?: string[]
  /** Facts the person deleted: never in the brief, never stored again. */
  deleted?: string[]
  /** Crisis statements: never stored (not as a fact, not in an episode), never in the brief. */
  crisis?: string[]
  /** Facts that must not be in the brief for another reason (inferred health, said while paused). */
  absent?: string[]
  paused?: boolean
  /** The brief's budget (the product's BRIEF_TOKEN_BUDGET). */
  budget?: number
}

export type ScenarioSession = {
  channel: MemoryChannel
  /** The conversation within the scenario: sessions with the same source are one conversation going on (default: a new one). */
  source?: string
  at: string
  /** What was said, for realism: "Them: …", "Coach: …". */
  transcript: string[]
  /** What the fake model returns for it, in the call report's and the chat extraction's shape. */
  output: { summary: string | null; factsLearned?: ScenarioFact[]; factsChanged?: ScenarioChange[] }
  /** Its extraction job does not run at its time, but when an action `{ run }` says. */
  deferred?: boolean
  before?: ScenarioAction[]
  after?: ScenarioAction[]
  expect?: ScenarioExpect
}

export type ScenarioKind = 'cross-channel' | 'change' | 'deletion' | 'crisis' | 'budget' | 'health' | 'pause' | 'idempotency' | 'correction'

export type Scenario = {
  name: string
  kind: ScenarioKind
  about: string
  person?: Person
  /**
   * A long-time member's other facts: this many filler facts, bulk-inserted before the first
   * session, or after session `after` (0-based), dated between it and the next, so they are newer.
   */
  history?: { facts: number; after?: number }
  sessions: ScenarioSession[]
}

export type Tally = {
  checks: number
  expected: number
  recalled: number
  stale: number
  resurfaced: number
  crisisStored: number
  leaked: number
  overBudget: number
  pausedWrong: number
  errors: number
  maxTokens: number
}

export type ScenarioResult = { name: string; kind: ScenarioKind; sessions: number; tally: Tally; failures: string[] }

export const emptyTally = (): Tally => ({ checks: 0, expected: 0, recalled: 0, stale: 0, resurfaced: 0, crisisStored: 0, leaked: 0, overBudget: 0, pausedWrong: 0, errors: 0, maxTokens: 0 })

export function addTallies(tallies: readonly Tally[]): Tally {
  const total = emptyTally()
  for (const tally of tallies) {
    for (const key of Object.keys(total) as Array<keyof Tally>) total[key] = key === 'maxTokens' ? Math.max(total[key], tally[key]) : total[key] + tally[key]
  }
  return total
}

/** Case and spacing ignored. */
const norm = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim()
const shows = (brief: CoachBrief, statement: string) => norm(brief.text).includes(norm(statement))

const HOUR = 3_600_000

/** The memory over the evaluation's database, on a clock the runner sets to each session's time. */
function memoryOver(db: Db, clock: { current: Date }): Memory {
  return createMemory({
    db,
    clock: { now: () => clock.current },
    jobs: { enqueue: async () => randomUUID() } as Parameters<typeof createMemory>[0]['jobs'],
    vapiChat: undefined,
    variablesOf: async () => ({}),
  })
}

/** Runs one scenario for a new person and returns what its checks found. */
export async function runScenario(db: Db, scenario: Scenario): Promise<ScenarioResult> {
  const tally = emptyTally()
  const failures: string[] = []
  const fail = (session: number, message: string) => failures.push(`session ${session + 1}: ${message}`)
  const userId = await insertPerson(db, scenario.person ?? { name: 'Jordan Ellis' })
  const clock = { current: new Date(scenario.sessions[0]!.at) }
  const memory = memoryOver(db, clock)

  const insertHistory = async (history: { facts: number; after?: number }) => {
    const from = history.after === undefined ? null : new Date(scenario.sessions[history.after]!.at).getTime()
    const to = new Date(scenario.sessions[history.after === undefined ? 0 : history.after + 1]?.at ?? Date.now()).getTime()
    const rows = Array.from({ length: history.facts }, (_, i) => {
      const fact = fillerFact(i)
      // Before the first session, six hours apart; else spread between the two sessions.
      const at = from === null ? to - (history.facts - i) * 6 * HOUR : from + ((i + 1) * (to - from)) / (history.facts + 2)
      return { userId, ...fact, sourceChannel: 'call' as const, sourceId: `history-${i}`, validFrom: new Date(at) }
    })
    for (let i = 0; i < rows.length; i += 500) await db.insert(memoryFacts).values(rows.slice(i, i + 500))
  }
  if (scenario.history && scenario.history.after === undefined) await insertHistory(scenario.history)

  const sourceOf = (index: number) => `${scenario.name}:${scenario.sessions[index]!.source ?? `s${index + 1}`}`
  const payloadOf = (index: number, key: string) => {
    const session = scenario.sessions[index]!
    // The channel's lenient parse of the model's output, then the job's strict payload.
    const facts = ExtractedFacts.parse(session.output)
    return MemoryRecordPayload.parse({
      userId,
      channel: session.channel,
      sourceId: sourceOf(index),
      key,
      occurredAt: new Date(session.at).toISOString(),
      summary: session.output.summary,
      learned: facts.learned,
      changed: facts.changed,
    })
  }
  let again = 0
  const currentFactNamed = async (words: string) => {
    const rows = await db
      .select({ id: memoryFacts.id, statement: memoryFacts.statement })
      .from(memoryFacts)
      .where(and(eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo)))
    return rows.find((row) => norm(row.statement) === norm(words)) ?? null
  }

  const act = async (index: number, action: ScenarioAction) => {
    if ('forget' in action) {
      const fact = await currentFactNamed(action.forget)
      if (!fact) return fail(index, `cannot delete "${action.forget}": it is not a current fact`)
      await memory.forget(userId, fact.id)
    } else if ('correct' in action) {
      const fact = await currentFactNamed(action.correct)
      if (!fact) return fail(index, `cannot correct "${action.correct}": it is not a current fact`)
      await memory.correct(userId, fact.id, { statement: action.to, subject: action.subject })
    } else if ('forgetAll' in action) {
      await memory.forgetAll(userId)
    } else if ('pause' in action) {
      await memory.setPaused(userId, action.pause)
    } else if ('reprocess' in action) {
      again += 1
      await memory.record(payloadOf(action.reprocess, `${sourceOf(action.reprocess)}:again-${again}`))
    } else {
      const session = 'run' in action ? action.run : action.retry
      await memory.record(payloadOf(session, `${sourceOf(session)}:${session}`))
    }
  }

  for (const [index, session] of scenario.sessions.entries()) {
    try {
      clock.current = new Date(new Date(session.at).getTime() - HOUR)
      for (const action of session.before ?? []) await act(index, action)
      clock.current = new Date(session.at)
      if (!session.deferred) await memory.record(payloadOf(index, `${sourceOf(index)}:${index}`))
      clock.current = new Date(new Date(session.at).getTime() + HOUR)
      for (const action of session.after ?? []) await act(index, action)
      if (scenario.history?.after === index) await insertHistory(scenario.history)
      const expect = session.expect
      if (!expect) continue

      clock.current = new Date(new Date(session.at).getTime() + 2 * HOUR)
      const brief = await buildBrief(db, userId, clock.current, expect.query ?? null)
      if (!brief) {
        fail(index, 'no brief')
        tally.errors++
        continue
      }
      tally.checks++
      tally.maxTokens = Math.max(tally.maxTokens, brief.tokens)
      const budget = expect.budget ?? BRIEF_TOKEN_BUDGET
      if (brief.tokens > budget || tokensOf(brief.text) > budget) {
        tally.overBudget++
        fail(index, `brief of ${tokensOf(brief.text)} tokens, over its budget of ${budget}`)
      }
      for (const statement of expect.current ?? []) {
        tally.expected++
        if (shows(brief, statement)) tally.recalled++
        else fail(index, `missing current fact "${statement}"`)
      }
      for (const statement of expect.stale ?? []) {
        if (shows(brief, statement)) {
          tally.stale++
          fail(index, `stale fact shown "${statement}"`)
        }
      }
      const stored = await db.select({ statement: memoryFacts.statement, validTo: memoryFacts.validTo }).from(memoryFacts).where(eq(memoryFacts.userId, userId))
      const episodes = await db.select({ summary: memoryEpisodes.summary }).from(memoryEpisodes).where(eq(memoryEpisodes.userId, userId))
      for (const statement of expect.deleted ?? []) {
        if (shows(brief, statement) || stored.some((row) => norm(row.statement) === norm(statement))) {
          tally.resurfaced++
          fail(index, `deleted fact is back "${statement}"`)
        }
      }
      for (const statement of expect.crisis ?? []) {
        if (shows(brief, statement) || stored.some((row) => norm(row.statement).includes(norm(statement))) || episodes.some((row) => norm(row.summary).includes(norm(statement)))) {
          tally.crisisStored++
          fail(index, `crisis statement stored "${statement}"`)
        }
      }
      for (const statement of expect.absent ?? []) {
        if (shows(brief, statement)) {
          tally.leaked++
          fail(index, `fact that must not be in the brief is "${statement}"`)
        }
      }
      if (expect.paused !== undefined && brief.paused !== expect.paused) {
        tally.pausedWrong++
        fail(index, `brief paused ${brief.paused}, expected ${expect.paused}`)
      }
    } catch (error) {
      tally.errors++
      fail(index, `error: ${(error as Error).message}`)
    }
  }
  return { name: scenario.name, kind: scenario.kind, sessions: scenario.sessions.length, tally, failures }
}

export type Evaluation = { results: ScenarioResult[]; total: Tally; recall: number }

/** Runs every scenario, each for its own person. */
export async function runScenarios(db: Db, scenarios: readonly Scenario[]): Promise<Evaluation> {
  const results: ScenarioResult[] = []
  for (const scenario of scenarios) results.push(await runScenario(db, scenario))
  const total = addTallies(results.map((result) => result.tally))
  return { results, total, recall: total.expected === 0 ? 100 : (100 * total.recalled) / total.expected }
}

/** The goals other than the build time: recall ≥ 95%, nothing stale, deleted, crisis or leaked shown, every brief within budget. */
export function qualityMet(evaluation: Evaluation): boolean {
  const { total, recall } = evaluation
  return recall >= 95 && total.stale === 0 && total.resurfaced === 0 && total.crisisStored === 0 && total.leaked === 0 && total.overBudget === 0 && total.pausedWrong === 0 && total.errors === 0
}
