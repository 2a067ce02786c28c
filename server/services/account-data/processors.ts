/**
 * What an account's deletion asks of the processors (docs/decisions/064): Vapi deletes the
 * person's calls (ended ones too) and every chat of their conversations; Twilio erases the bodies
 * of the texts we sent them and of the texts they sent us. The deletion collects the providers'
 * ids in its transaction, from the rows it deletes (ids only: never a name, a number or a body),
 * and enqueues the `processor-deletion` job after the commit. Each run asks the providers once per
 * id and hands what is left (a provider that failed, a text still on its way, a call still in
 * progress) to the next try only, so a retry never asks again for what is done; 404 at a provider
 * counts as done. After the last try it gives up with a warning.
 */
import type { Logger } from 'pino'
import { z } from 'zod'
import type { RedactResult } from '#server/integrations/twilio'

/**
 * Tries in all; the first retry a minute after the first try, each wait twice the one before: the
 * last try comes ~17 hours after the first, after a text has left Twilio's queue for good (it
 * waits there at most 10 hours, Twilio's default ValidityPeriod, which our texts keep).
 */
export const PROCESSOR_DELETION_ATTEMPTS = 11
export const PROCESSOR_DELETION_BACKOFF_MS = 60_000
/** Ids in one job: a person with more gets several jobs. */
const PROCESSOR_IDS_PER_JOB = 500

// The ids go into the providers' URL paths: letters, digits, '-' and '_' only.
const vapiId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/)
const twilioSid = z.string().regex(/^[A-Za-z0-9]{1,64}$/)

/** The job's payload: the providers' ids, nothing else. */
export const ProcessorIdsSchema = z
  .object({
    /** Vapi's call ids (phone calls and calls in the app). */
    vapiCalls: z.array(vapiId).max(PROCESSOR_IDS_PER_JOB),
    /** Each conversation's newest chat id at Vapi: the run follows each chain back (previousChatId) to its first chat. */
    vapiChatChains: z.array(vapiId).max(PROCESSOR_IDS_PER_JOB),
    /** Chats found on the chains, each deleted on its own (a chain can be long: a chat per turn). */
    vapiChats: z.array(vapiId).max(100_000),
    /** Twilio's message sids: the texts we sent the person and the texts they sent us. */
    twilioMessages: z.array(twilioSid).max(PROCESSOR_IDS_PER_JOB),
  })
  .strict()
export type ProcessorIds = z.infer<typeof ProcessorIdsSchema>
/** The kinds of id the deletion collects from its tables (tables.ts: `atProcessor`). */
export type ProcessorIdKind = 'vapiCalls' | 'vapiChatChains' | 'twilioMessages'

export const noProcessorIds = (): ProcessorIds => ({ vapiCalls: [], vapiChatChains: [], vapiChats: [], twilioMessages: [] })
const idCount = (ids: ProcessorIds) => ids.vapiCalls.length + ids.vapiChatChains.length + ids.vapiChats.length + ids.twilioMessages.length

/** What the deletion asks of each provider; a provider not configured is undefined (nothing to ask). */
export type ProcessorClients = {
  vapi:
    | {
        deleteCall(vapiCallId: string): Promise<'deleted' | 'live' | 'not-found'>
        previousChatOf(chatId: string): Promise<{ previousChatId: string | null } | 'not-found'>
        deleteChat(chatId: string): Promise<'deleted' | 'not-found'>
      }
    | undefined
  twilio: { redact(messageSid: string): Promise<RedactResult> } | undefined
}

/**
 * The ids the deletion collected, as job payloads: ids of a form no provider uses are left out
 * (counted, for the log), duplicates once, at most PROCESSOR_IDS_PER_JOB a job.
 */
export function processorPayloads(ids: ProcessorIds): { payloads: ProcessorIds[]; malformed: number } {
  let malformed = 0
  const all: Array<[keyof ProcessorIds, string]> = []
  for (const kind of ['vapiCalls', 'vapiChatChains', 'vapiChats', 'twilioMessages'] as const) {
    const schema = kind === 'twilioMessages' ? twilioSid : vapiId
    for (const id of new Set(ids[kind])) {
      if (schema.safeParse(id).success) all.push([kind, id])
      else malformed++
    }
  }
  const payloads: ProcessorIds[] = []
  for (let start = 0; start < all.length; start += PROCESSOR_IDS_PER_JOB) {
    const payload = noProcessorIds()
    for (const [kind, id] of all.slice(start, start + PROCESSOR_IDS_PER_JOB)) payload[kind].push(id)
    payloads.push(payload)
  }
  return { payloads, malformed }
}

export type ProcessorRun = {
  log: Logger
  /** The job's last try: what is left is given up, with a warning, instead of tried again. */
  lastTry: boolean
  /** Hands what is left to the next try (the job context's retryWith). */
  retryWith(left: ProcessorIds): Promise<void>
}

type ProcessorDeletionResult = {
  vapi: { calls: number; chats: number }
  twilio: { redacted: number }
  /** Ids a provider did not have any more (deleted already: done). */
  notFound: number
  left: number
}

/** The longest chain followed (a conversation has a chat per turn; a loop would be Vapi's bug). */
const MAX_CHAIN = 10_000

/** One run of the `processor-deletion` job. Throws (after retryWith) while ids are left and tries remain. */
export async function deleteAtProcessors(clients: ProcessorClients, ids: ProcessorIds, run: ProcessorRun): Promise<ProcessorDeletionResult> {
  const { log } = run
  const left = noProcessorIds()
  const reasons = new Map<string, string>()
  const note = (what: string, error: unknown) => {
    if (!reasons.has(what)) reasons.set(what, (error instanceof Error ? error.message : String(error)).slice(0, 300))
  }
  const result: ProcessorDeletionResult = { vapi: { calls: 0, chats: 0 }, twilio: { redacted: 0 }, notFound: 0, left: 0 }

  const { vapi, twilio } = clients
  const vapiIds = ids.vapiCalls.length + ids.vapiChatChains.length + ids.vapiChats.length
  // Nothing to ask a provider that is not configured: said once, and the ids are not handed on.
  if (!vapi && vapiIds > 0) log.info({ calls: ids.vapiCalls.length, chats: ids.vapiChatChains.length + ids.vapiChats.length }, 'processor deletion: Vapi is not configured, nothing to delete there')
  if (!twilio && ids.twilioMessages.length > 0) log.info({ texts: ids.twilioMessages.length }, 'processor deletion: Twilio is not configured, nothing to redact there')

  if (vapi && vapiIds > 0) {
    // Every chat of each conversation, found by following the chain back from its newest chat,
    // all read before any is deleted (a deleted chat no longer names the one before it).
    const chats = [...ids.vapiChats]
    const known = new Set(chats)
    for (const head of ids.vapiChatChains) {
      let id: string | null = head
      try {
        for (let step = 0; id && !known.has(id) && step < MAX_CHAIN; step++) {
          const found = await vapi.previousChatOf(id)
          if (found === 'not-found') {
            result.notFound++
            break
          }
          chats.push(id)
          known.add(id)
          id = found.previousChatId
        }
      } catch (error) {
        // Followed again from here on the next try.
        if (id) left.vapiChatChains.push(id)
        note('vapi chat', error)
      }
    }
    // From here the chats are ids of their own: should this run stop (a worker that dies), the
    // next one deletes them without following the chains again.
    if (ids.vapiChatChains.length > 0) await run.retryWith({ ...ids, vapiChatChains: left.vapiChatChains, vapiChats: chats })

    for (const id of chats) {
      try {
        if ((await vapi.deleteChat(id)) === 'deleted') result.vapi.chats++
        else result.notFound++
      } catch (error) {
        left.vapiChats.push(id)
        note('vapi chat', error)
      }
    }
    for (const id of ids.vapiCalls) {
      try {
        const outcome = await vapi.deleteCall(id)
        if (outcome === 'deleted') result.vapi.calls++
        else if (outcome === 'not-found') result.notFound++
        else {
          // The person is on the call: deleted once it has ended.
          left.vapiCalls.push(id)
          note('vapi call', 'a call still in progress')
        }
      } catch (error) {
        left.vapiCalls.push(id)
        note('vapi call', error)
      }
    }
  }

  if (twilio) {
    for (const sid of ids.twilioMessages) {
      const outcome = await twilio.redact(sid).catch((error: unknown): RedactResult => ({ kind: 'kept', reason: error instanceof Error ? error.message : String(error) }))
      if (outcome.kind === 'redacted') result.twilio.redacted++
      else if (outcome.kind === 'not-found') result.notFound++
      else {
        // A text still on its way cannot be redacted yet; a failure may pass.
        left.twilioMessages.push(sid)
        note('twilio text', outcome.reason)
      }
    }
  }

  result.left = idCount(left)
  if (result.left === 0) return result
  const why = [...reasons].map(([what, reason]) => `${what}: ${reason}`).join('; ')
  if (run.lastTry) {
    log.warn({ ...result, leftIds: left, reasons: why }, 'processor deletion: given up after the last try; what is left stays at the providers')
    return result
  }
  await run.retryWith(left)
  throw new Error(`processor deletion: ${result.left} left for the next try (${why})`)
}
