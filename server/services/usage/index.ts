/**
 * The plan's in-app budget (docs/decisions/061): voice minutes in the app and chat turns, a
 * calendar month's per tier with a daily guard under it, in the person's own time zone. The chat
 * takes each turn inside its own transaction as it accepts the message; the voice gateway asks how
 * long a call may run before it starts, and counts the call's seconds while it lives and at its
 * end; Vapi's billed duration raises a call's count when it says more. The account page reads
 * what is used and left.
 */
import type { AccountUsageResponse } from '#common/usage'
import type { Db, DbExecutor } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import { decideAccess } from '#server/services/billing'
import { assertChatTurnLeft, periodsOf, usageTier, usageView, voiceAllowance, type VoiceAllowance } from './budgets'
import { addChatTurn, countVoiceCall, lockPersonUsage, readPerson, readUsed } from './store'

/** A call's row as the calls domain reports it final (what `callBilled` reads of it). */
type BilledCall = { id: string; userId: string; kind: string; callDuration: number; callDate: Date; timeZone: string | null }

export type Usage = ReturnType<typeof createUsage>

export function createUsage(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps

  /** The person's tier and periods at `now` (no such user: no tier). */
  async function standing(executor: DbExecutor, userId: string, now: Date) {
    const person = await readPerson(executor, userId)
    return { tier: person ? usageTier(decideAccess(person, now)) : null, periods: periodsOf(now, person?.timeZone) }
  }

  return {
    /** GET /api/account/usage: this month's and today's use, the limits, and when each comes back. */
    async summary(userId: string): Promise<AccountUsageResponse> {
      const now = clock.now()
      const { tier, periods } = await standing(db, userId, now)
      return usageView(tier, periods, await readUsed(db, userId, periods))
    },

    /**
     * Before a voice call: how long it may run (the ceiling, or what is left of the month's or the
     * day's minutes), or USAGE_LIMIT_REACHED. The gateway asks while it holds the person's call
     * lease, so no other call of theirs spends meanwhile, on any server.
     */
    async voiceAllowance(userId: string): Promise<VoiceAllowance> {
      const now = clock.now()
      const { tier, periods } = await standing(db, userId, now)
      return voiceAllowance(tier, periods, await readUsed(db, userId, periods), now)
    },

    /** A voice call's seconds so far (the gateway's own measure): raised, never lowered, never added twice. */
    countVoice: (input: { callId: string; userId: string; localDate: string; seconds: number }) => countVoiceCall(db, { ...input, now: clock.now() }),

    /**
     * One chat turn, inside the chat's transaction that stores the user's message: refused with
     * USAGE_LIMIT_REACHED when the month's or the day's turns are spent. The person's turns are
     * taken one transaction at a time (on every server), so two tabs never spend past the limit;
     * a message that is not stored in the end (the transaction rolls back) is not counted.
     */
    async takeChatTurn(tx: DbExecutor, userId: string): Promise<void> {
      const now = clock.now()
      const { tier, periods } = await standing(tx, userId, now)
      await lockPersonUsage(tx, userId)
      assertChatTurnLeft(tier, periods, await readUsed(tx, userId, periods), now)
      await addChatTurn(tx, userId, periods.date, now)
    },

    /**
     * A voice call in the app that Vapi's webhooks finished: its duration as Vapi has it (the
     * end-of-call report's, else from its start and end) raises the gateway's count when it is
     * longer, on the local date the call started.
     */
    async callBilled(call: BilledCall): Promise<void> {
      if (call.kind !== 'web' || call.callDuration <= 0) return
      const localDate = periodsOf(call.callDate, call.timeZone).date
      await countVoiceCall(db, { callId: call.id, userId: call.userId, localDate, seconds: call.callDuration, now: clock.now() })
    },
  }
}
