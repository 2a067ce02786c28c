/**
 * Deleting at Vapi the calls it has not connected yet: after a revocation of consent to calls (a
 * STOP text, the calls switch turned off), and after an account's deletion. A call the person
 * already answered is left to end by itself.
 */
import { hasConsent } from '#server/services/consent'
import type { CallsContext } from './context'
import type { DeletedCall } from './jobs'
import { addCallEvent } from './record'
import { CONSENT_REVOKED, unansweredPlacedCalls } from './revoked'

type Cancelled = { cancelled: number; answered: number }

export function createCancellations(ctx: Pick<CallsContext, 'db' | 'clock' | 'vapi'>) {
  const { db, clock } = ctx

  return {
    /**
     * After a revocation of consent to calls: deletes at Vapi the person's calls it has not
     * connected yet (the revoking transaction already stopped the claims and retries). Nothing if
     * calls are on again by then: what was placed since (a "Call me now") is wanted.
     */
    async cancelUnanswered(userId: string): Promise<Cancelled> {
      const vapi = ctx.vapi
      if (!vapi || (await hasConsent(db, userId, 'calls'))) return { cancelled: 0, answered: 0 }
      let cancelled = 0
      let answered = 0
      for (const call of await unansweredPlacedCalls(db, userId)) {
        const result = await vapi.cancel(call.vapiCallId)
        if (result === 'in-progress') answered++
        if (result === 'cancelled') {
          cancelled++
          await addCallEvent(db, { id: call.id, userId }, 'cancelled', clock.now(), { reason: CONSENT_REVOKED })
        }
      }
      return { cancelled, answered }
    },

    /**
     * After an account's deletion: deletes at Vapi the calls it had not connected yet (queued or
     * ringing by their Vapi id; a dial that was on its way, found by our call's name).
     */
    async cancelDeleted(deleted: readonly DeletedCall[]): Promise<Cancelled> {
      const vapi = ctx.vapi
      if (!vapi) return { cancelled: 0, answered: 0 }
      let cancelled = 0
      let answered = 0
      for (const call of deleted) {
        const dialledAt = call.dialledAt ? new Date(call.dialledAt) : null
        const vapiCallId = call.vapiCallId ?? (dialledAt ? (await vapi.findPlaced(call.callId, new Date(dialledAt.getTime() - 5_000), new Date(dialledAt.getTime() + 60_000)))?.id : undefined)
        if (!vapiCallId) continue
        const result = await vapi.cancel(vapiCallId)
        if (result === 'cancelled') cancelled++
        if (result === 'in-progress') answered++
      }
      return { cancelled, answered }
    },
  }
}
