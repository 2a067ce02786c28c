/**
 * The commitment loop: what a person committed to in each call, open until the next call's
 * report says kept or missed (or the person marks it done in the app), and the kept rate. The
 * calls domain applies reports and fills the next call's variables through the functions exported
 * here; the dashboard reads and marks through `createCommitments`.
 */
import { and, eq } from 'drizzle-orm'
import type { CommitmentsResponse, MarkCommitmentDoneResponse } from '#common/commitments'
import { isUuid } from '#common/uuid'
import type { Db } from '#server/db/client'
import { commitments } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { keptRate, openCommitments, toCommitmentView } from './commitments'

export {
  applyReportCommitments,
  matchReviewed,
  openCommitmentsForCall,
  openCommitmentsJson,
  openCommitmentsVariable,
  similarity,
  type AskedCommitment,
  type ReviewedCommitment,
} from './commitments'

const notFound = () => new AppError('NOT_FOUND', 'This commitment could not be found.')

export function createCommitments(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps
  return {
    /** The dashboard's card: the open commitments and the kept rate over the last 30 days. */
    async list(userId: string): Promise<CommitmentsResponse> {
      const [open, rate] = await Promise.all([openCommitments(db, userId), keptRate(db, userId, clock.now())])
      return { open, keptRate: rate }
    },

    /**
     * The person did it: an open commitment of theirs becomes kept (by the app). Marking a kept one
     * again changes nothing; a missed one stays missed (409); anyone else's is a 404.
     */
    async markDone(userId: string, commitmentId: string): Promise<MarkCommitmentDoneResponse> {
      if (!isUuid(commitmentId)) throw notFound()
      const now = clock.now()
      const [updated] = await db
        .update(commitments)
        .set({ status: 'kept', resolvedAt: now, resolvedBy: 'app', updatedAt: now })
        .where(and(eq(commitments.id, commitmentId), eq(commitments.userId, userId), eq(commitments.status, 'open')))
        .returning()
      let row = updated
      if (!row) {
        ;[row] = await db
          .select()
          .from(commitments)
          .where(and(eq(commitments.id, commitmentId), eq(commitments.userId, userId)))
          .limit(1)
        if (!row) throw notFound()
        if (row.status === 'missed') throw new AppError('CONFLICT', 'The call already recorded this commitment as missed.', { field: 'id' })
      }
      return { commitment: toCommitmentView(row), keptRate: await keptRate(db, userId, now) }
    },
  }
}
