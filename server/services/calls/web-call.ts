/**
 * A voice call the person starts in the app (the voice gateway, kind and slot `web`): a row in
 * coaching_calls like any call, so it appears in the call history with its duration, transcript and
 * summary. The row is written before Vapi is asked (our id goes into the call's name and metadata),
 * then gets Vapi's call id; from there the webhooks (`status-update`, `end-of-call-report`) and the
 * sweep keep it, exactly as for a phone call: the gateway's socket events never write it. A web
 * call has no local date and is never retried (retryDecision: not a daily call).
 */
import { randomUUID } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { Db } from '#server/db/client'
import { coachingCalls } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { WEB_CALL_SERVER_MESSAGES } from './assistant'
import type { CallsContext } from './context'
import { callVariables, DIAL_LEASE_MS } from './dialler'
import { localDateOf } from './next-fire'
import type { CallLines } from './lines'
import { loadCallPerson, type CallPerson } from './person'
import { addCallEvent } from './record'
import type { CallVariables } from './assistant'
import type { CallWebhookServer } from './webhook-server'

/** A call in the app holds its line at most its allowed length plus this (the report's lag). */
const WEB_LINE_MARGIN_MS = 5 * 60_000

export type OpenedWebCall = {
  /** Our call id (coaching_calls.id). */
  callId: string
  /** The webhook server the call names (our URL and the credential, ADR 063); undefined: the saved assistant's own. */
  server?: { url: string; credentialId: string } | undefined
  /** How long the call may run: what the voice gateway allowed it (the ceiling, or the plan's budget left). */
  maxDurationSeconds: number
  /** The same variables a daily call sends, for an in-app conversation (no call type). */
  variableValues: CallVariables
}

/**
 * Writes the web call's row ('dialling') and reads the variables the assistant's prompt uses. Its
 * length is the voice gateway's to decide (the plan's in-app budget, docs/decisions/061), not the
 * plan's phone-call length.
 */
async function openWebCall(db: Db, lines: CallLines, userId: string, maxDurationSeconds: number, now: Date): Promise<OpenedWebCall> {
  const person = await loadCallPerson(db, userId, now)
  if (!person) throw new AppError('UNAUTHENTICATED')
  const plan = person.access.hasSubscription ? person.access.tier : null
  if (!plan) throw new AppError('PAYMENT_REQUIRED')
  // A line first (the reserved ones included): with none free the person is told so in words, and nothing is written.
  const id = randomUUID()
  if (!(await lines.takeApp(id, maxDurationSeconds * 1000 + WEB_LINE_MARGIN_MS))) throw new AppError('VOICE_LINES_BUSY')
  try {
    return await writeWebCall(db, person, id, maxDurationSeconds, now)
  } catch (error) {
    await lines.release(id)
    throw error
  }
}

async function writeWebCall(db: Db, person: CallPerson, id: string, maxDurationSeconds: number, now: Date): Promise<OpenedWebCall> {
  const { userId } = person
  const call = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(coachingCalls)
      .values({
        id,
        userId,
        slot: 'web',
        kind: 'web',
        localDate: null,
        attempt: 0,
        callDate: now,
        timeZone: person.timeZone,
        maxDurationSeconds,
        completionStatus: 'dialling',
        dialledAt: now,
        dialLeaseUntil: new Date(now.getTime() + DIAL_LEASE_MS),
      })
      .returning()
    await addCallEvent(tx, row!, 'scheduled', now, { requested: 'web' })
    return row!
  })
  const { values, askedCommitmentIds } = await callVariables(db, person, { ...call, localDate: localDateOf(now, person.timeZone) }, now)
  // The open commitments the variables number: the call's report reviews them against this list.
  if (askedCommitmentIds.length > 0) await db.update(coachingCalls).set({ askedCommitmentIds }).where(eq(coachingCalls.id, call.id))
  return { callId: call.id, maxDurationSeconds, variableValues: values }
}

/** Vapi created the call: the row gets its id ('queued'), so webhooks find it. */
async function attachWebCall(db: Db, callId: string, vapiCallId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(coachingCalls)
      .set({ vapiCallId, completionStatus: 'queued', dialLeaseUntil: null, updatedAt: now })
      .where(and(eq(coachingCalls.id, callId), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      .returning()
    if (row) await addCallEvent(tx, row, 'dialled', now, { vapiCallId })
  })
}

/**
 * Vapi did not create the call, or could not say (the row ends 'failed' with why), or the person
 * left before it was asked ('cancelled').
 */
async function failWebCall(db: Db, callId: string, status: 'failed' | 'cancelled', reason: string, detail: Record<string, unknown>, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(coachingCalls)
      .set({ completionStatus: status, endedReason: reason, endedAt: now, dialLeaseUntil: null, updatedAt: now })
      .where(and(eq(coachingCalls.id, callId), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      .returning()
    if (row) await addCallEvent(tx, row, 'dial_failed', now, { reason, ...detail })
  })
}

/**
 * Voice calls started in the app (the voice gateway): the row is written first, then gets Vapi's
 * call id (or the failure); the webhooks keep it from there, as for a phone call.
 */
export function createWebCalls(ctx: Pick<CallsContext, 'db' | 'clock' | 'lines'>, callWebhookServer: () => Promise<CallWebhookServer>) {
  const { db, clock, lines } = ctx
  return {
    /** Writes the call's row (its length: what the voice gateway allowed it) and reads its variables; with the webhook server it names (the credential in secret mode). */
    open: async (userId: string, maxDurationSeconds: number) => {
      const server = await callWebhookServer()
      return { ...(await openWebCall(db, lines, userId, maxDurationSeconds, clock.now())), server }
    },
    attach: (callId: string, vapiCallId: string) => attachWebCall(db, callId, vapiCallId, clock.now()),
    /** Nothing was placed (or the person left first): the row says why and the line is given back. */
    async fail(callId: string, status: 'failed' | 'cancelled', reason: string, detail: Record<string, unknown>) {
      await lines.release(callId)
      await failWebCall(db, callId, status, reason, detail, clock.now())
    },
    serverMessages: WEB_CALL_SERVER_MESSAGES,
  }
}
