/**
 * How late a phone call was placed, as the calls list and a call's detail give it
 * (docs/decisions/070): due (call_date) → dialled (dialled_at), and why (dial_wait_reason).
 */
import { LATE_AFTER_SECONDS, type DialWaitReason } from '#common/calls'
import type { CallSlotName } from '#common/domain'

type Dialled = { slot: CallSlotName; callDate: Date; dialledAt: Date | null; dialWaitReason: DialWaitReason | null }

/**
 * `lateSeconds`: whole seconds from due to dialled, when more than LATE_AFTER_SECONDS; `lateReason`:
 * why, when it was late. Both null for a call not dialled, dialled on time, or started in the app
 * (a voice call in the app is placed when the person asks: it has no time to be late for).
 */
export function callLateness(call: Dialled): { lateSeconds: number | null; lateReason: DialWaitReason | null } {
  if (call.slot === 'web' || !call.dialledAt) return { lateSeconds: null, lateReason: null }
  const seconds = Math.floor((call.dialledAt.getTime() - call.callDate.getTime()) / 1000)
  if (seconds <= LATE_AFTER_SECONDS) return { lateSeconds: null, lateReason: null }
  return { lateSeconds: seconds, lateReason: call.dialWaitReason }
}
