/**
 * The commitment loop's storage: the commitments a call's report made, the open ones the next call
 * asks about, that call's review of them (kept or missed), the person's own "done", and the kept
 * rate over the last 30 days. Every per-user read and write is filtered by the user id.
 */
import { and, desc, eq, gte, inArray, isNotNull, sql, type SQL } from 'drizzle-orm'
import { KEPT_RATE_DAYS, OPEN_COMMITMENTS_IN_CALL, type CommitmentView, type KeptRate } from '#common/commitments'
import type { DbExecutor } from '#server/db/client'
import { commitments, type Commitment } from '#server/db/schema'

const DAY_MS = 24 * 60 * 60 * 1000

/** An open commitment as a call's variables carry it. */
export type AskedCommitment = { id: string; text: string }

/**
 * What a call's report says about one of the open commitments its variables carried: their
 * number in the list (1-based) and/or their words, and whether the person did it.
 */
export type ReviewedCommitment = { number: number | null; commitment: string | null; outcome: 'kept' | 'missed' }

export function toCommitmentView(row: Pick<Commitment, 'id' | 'text' | 'status' | 'madeAt' | 'callId' | 'resolvedAt' | 'resolvedBy'>): CommitmentView {
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    madeAt: row.madeAt.toISOString(),
    callId: row.callId,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    resolvedBy: row.resolvedBy ?? null,
  }
}

/**
 * The open commitments a call asks about, as a JSON array of {id, text} (the most recent
 * OPEN_COMMITMENTS_IN_CALL, oldest first), for a select of one statement (the dial's read).
 */
export function openCommitmentsJson(userId: SQL | string): SQL<AskedCommitment[] | null> {
  return sql<AskedCommitment[] | null>`(select json_agg(json_build_object('id', o.id, 'text', o.text) order by o.made_at, o.position)
    from (select ${commitments.id} as id, ${commitments.text} as text, ${commitments.madeAt} as made_at, ${commitments.position} as position
          from ${commitments} where ${commitments.userId} = ${userId} and ${commitments.status} = 'open'
          order by ${commitments.madeAt} desc, ${commitments.position} desc limit ${OPEN_COMMITMENTS_IN_CALL}) o)`
}

/** The open commitments a call asks about (the most recent ones, oldest first). */
export async function openCommitmentsForCall(db: DbExecutor, userId: string): Promise<AskedCommitment[]> {
  const rows = await db
    .select({ id: commitments.id, text: commitments.text })
    .from(commitments)
    .where(and(eq(commitments.userId, userId), eq(commitments.status, 'open')))
    .orderBy(desc(commitments.madeAt), desc(commitments.position))
    .limit(OPEN_COMMITMENTS_IN_CALL)
  return rows.reverse()
}

/**
 * The `openCommitments` call variable: the list numbered from 1, one a line, or '' when there is
 * none (the prompt then skips the follow-up).
 */
export function openCommitmentsVariable(asked: readonly AskedCommitment[]): string {
  return asked.map((commitment, index) => `${index + 1}. ${commitment.text}`).join('\n')
}

const words = (value: string) => new Set(value.toLowerCase().normalize('NFKD').replace(/[^\p{L}\p{N}\s]/gu, ' ').split(/\s+/).filter((word) => word.length > 1))

/** How alike two commitments' words are: Dice's coefficient over their sets of words (0–1). */
export function similarity(a: string, b: string): number {
  const left = words(a)
  const right = words(b)
  if (left.size === 0 || right.size === 0) return 0
  let shared = 0
  for (const word of left) if (right.has(word)) shared++
  return (2 * shared) / (left.size + right.size)
}

/** Words this alike name the same commitment. */
const SAME_COMMITMENT = 0.5

/**
 * Which asked commitment each reviewed item is about. The words win when they clearly name one
 * (the extraction model may not see the numbered list, only the conversation); else the number,
 * when it is in the list. Each asked commitment is settled at most once (the first verdict).
 */
export function matchReviewed(asked: readonly AskedCommitment[], reviewed: readonly ReviewedCommitment[]): Array<{ id: string; outcome: 'kept' | 'missed' }> {
  const settled = new Map<string, 'kept' | 'missed'>()
  for (const item of reviewed) {
    let target: AskedCommitment | undefined
    if (item.commitment) {
      let best = 0
      for (const candidate of asked) {
        const score = similarity(item.commitment, candidate.text)
        if (score > best) {
          best = score
          target = candidate
        }
      }
      if (best < SAME_COMMITMENT) target = undefined
    }
    if (!target && item.number !== null && Number.isInteger(item.number) && item.number >= 1 && item.number <= asked.length) target = asked[item.number - 1]
    if (target && !settled.has(target.id)) settled.set(target.id, item.outcome)
  }
  return [...settled].map(([id, outcome]) => ({ id, outcome }))
}

type ReportCommitments = {
  call: { id: string; userId: string; askedCommitmentIds: string[] }
  /** The commitments made in the call, in order. */
  made: readonly string[]
  reviewed: readonly ReviewedCommitment[]
  /** When the call ended (the made ones' time, and the reviewed ones'). */
  at: Date
  now: Date
}

/**
 * Applies a call's report to the commitments, in the caller's transaction (the report is applied
 * once; the unique (call, position) key guards a second time anyway): the ones made become open
 * rows; the ones the call asked about and the report reviewed become kept or missed, unless the
 * person settled them meanwhile (only open ones change).
 */
export async function applyReportCommitments(tx: DbExecutor, input: ReportCommitments): Promise<{ made: number; kept: number; missed: number }> {
  const { call, now } = input
  let made = 0
  if (input.made.length > 0) {
    const inserted = await tx
      .insert(commitments)
      .values(input.made.map((text, position) => ({ userId: call.userId, callId: call.id, position, text, madeAt: input.at, createdAt: now, updatedAt: now })))
      .onConflictDoNothing()
      .returning({ id: commitments.id })
    made = inserted.length
  }
  let kept = 0
  let missed = 0
  if (call.askedCommitmentIds.length > 0 && input.reviewed.length > 0) {
    const rows = await tx
      .select({ id: commitments.id, text: commitments.text })
      .from(commitments)
      .where(and(eq(commitments.userId, call.userId), inArray(commitments.id, call.askedCommitmentIds)))
    const byId = new Map(rows.map((row) => [row.id, row]))
    const asked = call.askedCommitmentIds.map((id) => byId.get(id)).filter((row): row is AskedCommitment => row !== undefined)
    for (const outcome of ['kept', 'missed'] as const) {
      const ids = matchReviewed(asked, input.reviewed)
        .filter((match) => match.outcome === outcome)
        .map((match) => match.id)
      if (ids.length === 0) continue
      const updated = await tx
        .update(commitments)
        .set({ status: outcome, resolvedAt: input.at, resolvedBy: 'call', resolvedCallId: call.id, updatedAt: now })
        .where(and(eq(commitments.userId, call.userId), inArray(commitments.id, ids), eq(commitments.status, 'open')))
        .returning({ id: commitments.id })
      if (outcome === 'kept') kept = updated.length
      else missed = updated.length
    }
  }
  return { made, kept, missed }
}

/** Kept and missed among the commitments settled in the last KEPT_RATE_DAYS days. */
export async function keptRate(db: DbExecutor, userId: string, now: Date): Promise<KeptRate> {
  const since = new Date(now.getTime() - KEPT_RATE_DAYS * DAY_MS)
  const [row] = await db
    .select({
      kept: sql<number>`count(*) filter (where ${commitments.status} = 'kept')::int`,
      missed: sql<number>`count(*) filter (where ${commitments.status} = 'missed')::int`,
    })
    .from(commitments)
    .where(and(eq(commitments.userId, userId), isNotNull(commitments.resolvedAt), gte(commitments.resolvedAt, since)))
  const kept = Number(row?.kept ?? 0)
  const missed = Number(row?.missed ?? 0)
  return { days: KEPT_RATE_DAYS, kept, missed, percent: kept + missed === 0 ? null : Math.round((100 * kept) / (kept + missed)) }
}

/** The person's open commitments, newest first. */
export async function openCommitments(db: DbExecutor, userId: string): Promise<CommitmentView[]> {
  const rows = await db
    .select()
    .from(commitments)
    .where(and(eq(commitments.userId, userId), eq(commitments.status, 'open')))
    .orderBy(desc(commitments.madeAt), commitments.position)
    .limit(100)
  return rows.map(toCommitmentView)
}
