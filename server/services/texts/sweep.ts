/**
 * The sweep of Twilio's message log (docs/decisions/060): Twilio posts each inbound text to our
 * webhook once (and retries only a failed connection), so a STOP that arrived while the server was
 * down would be lost, and with it the revocation of the person's calls (Twilio's own block covers
 * only its texts). Every 10 minutes the inbound texts to our number since the last sweep (with an
 * overlap, for texts Twilio lists late) are read from its log and each one no webhook brought is
 * taken as the webhook would take it. A crisis text found this way still gets the resources, by a
 * text of its own (there is no webhook answer to put them in); other answers are not sent late.
 */
import { eq, inArray } from 'drizzle-orm'
import type { Logger } from 'pino'
import { CRISIS_REPLY } from '#common/texts'
import type { Db } from '#server/db/client'
import { inboundTextReceipts, inboundTextSweeps } from '#server/db/schema'
import { isStopped } from '#server/services/phones'
import { INBOUND_LIST_LIMIT, type TextSender } from '#server/integrations/twilio'
import type { InboundResult, InboundText } from './inbound'

/** How far before the last sweep the next one reads again (Twilio may list a text a little late). */
const SWEEP_OVERLAP_MS = 10 * 60_000
/** How far back the first sweep of a number reads. */
const FIRST_SWEEP_LOOKBACK_MS = 24 * 60 * 60_000

export type SweepOutcome = { listed: number; missed: number }

type SweepDeps = {
  db: Db
  log: Logger
  sender: TextSender
  smsNumber: string
  /** Takes one inbound text as the webhook does (once per sid). */
  take(message: InboundText): Promise<InboundResult>
}

export async function sweepInboundLog(deps: SweepDeps, now: Date): Promise<SweepOutcome> {
  if (!deps.sender.live) return { listed: 0, missed: 0 }
  const [mark] = await deps.db.select().from(inboundTextSweeps).where(eq(inboundTextSweeps.toNumber, deps.smsNumber)).limit(1)
  const since = new Date((mark ? mark.sweptUntil.getTime() : now.getTime() - FIRST_SWEEP_LOOKBACK_MS) - SWEEP_OVERLAP_MS)
  const logged = await deps.sender.listInbound(deps.smsNumber, since)
  if (logged.length >= INBOUND_LIST_LIMIT) deps.log.warn({ since: since.toISOString(), limit: INBOUND_LIST_LIMIT }, "texts: the sweep of Twilio's log read as many texts as it may: older ones since the last sweep were not read")
  const listed = logged.filter((message) => message.to === deps.smsNumber)
  const known = new Set<string>()
  for (let i = 0; i < listed.length; i += 500) {
    const sids = listed.slice(i, i + 500).map((message) => message.sid)
    const rows = await deps.db.select({ sid: inboundTextReceipts.messageSid }).from(inboundTextReceipts).where(inArray(inboundTextReceipts.messageSid, sids))
    for (const row of rows) known.add(row.sid)
  }
  let missed = 0
  for (const message of listed) {
    if (known.has(message.sid)) continue
    const result = await deps.take({ messageSid: message.sid, from: message.from, to: message.to, body: message.body })
    if (result.duplicate) continue
    missed++
    deps.log.warn({ messageSid: message.sid, keyword: result.keyword, accounts: result.userIds.length }, "texts: an inbound text reached us only through the sweep of Twilio's log (the webhook missed it)")
    // The resources, late, by REST (nobody is waiting for a webhook's answer); never to a number
    // that texted STOP since.
    if (result.reply === CRISIS_REPLY && !(await isStopped(deps.db, message.from))) {
      const sent = await deps.sender.send({ to: message.from, from: deps.smsNumber, body: CRISIS_REPLY })
      if (sent.kind !== 'sent' && sent.kind !== 'logged') deps.log.warn({ messageSid: message.sid, outcome: sent.kind }, 'texts: the crisis resources could not be texted')
    }
  }
  await deps.db
    .insert(inboundTextSweeps)
    .values({ toNumber: deps.smsNumber, sweptUntil: now })
    .onConflictDoUpdate({ target: inboundTextSweeps.toNumber, set: { sweptUntil: now } })
  return { listed: listed.length, missed }
}
