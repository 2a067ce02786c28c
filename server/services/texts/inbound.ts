/**
 * Inbound texts (POST /api/webhooks/sms, after its signature was checked): matched to the accounts
 * that use the sender's number (every one of them), stored once per MessageSid with the accounts it
 * reached (inbound_text_accounts: the text is theirs, docs/decisions/060), and acted on by keyword in
 * one transaction with the ledger rows they cause (docs/decisions/045):
 * - STOP family, and an opt-out in the person's own words (`optOutOf`: "stop texting me"): the
 *   number goes on the do-not-contact list (whatever account holds it, now or later), texts and
 *   calls revoked, claims not dialled skipped, retries dropped, held texts skipped; the one answer
 *   says what stopped and how each comes back (a repeated STOP that changes nothing is not answered
 *   again); words that may mean it ("I can't stop snacking") get one question back;
 * - START family: the number comes off the do-not-contact list, texts granted again (calls stay as
 *   they are); a START while the person is on the opt-in screen also completes that step; the
 *   number, which has just sent a text, is no longer taken for one that cannot take texts, and is
 *   proven the account's when no other account uses it;
 * - HELP family: what the service is and where to get help;
 * - words about suicide or self-harm (`isCrisisMessage`): where help is, at most hourly
 *   (docs/decisions/058).
 * A text from a number no account uses is answered with nothing and not stored (a STOP or START
 * from it still puts the number on the list or takes it off).
 */
import { applyRecord } from '#server/services/memory'
import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm'
import { optInConsentText } from '#common/opt-in'
import { CRISIS_REPLY, helpReply, isCrisisMessage, isStartWord, keywordOf, OPT_OUT_QUESTION, optOutOf, START_REPLY, STOP_REPLY, type KeywordFamily } from '#common/texts'
import type { Db, DbExecutor } from '#server/db/client'
import { inboundTextAccounts, inboundTextReceipts, inboundTexts, profiles, users } from '#server/db/schema'
import { isCallableNumber } from '#server/lib/phone-numbers'
import { stopCallsOf } from '#server/services/calls'
import { getConsentStates, recordConsent, type ConsentChange } from '#server/services/consent'
import { recordProof, startNumber, stopNumber } from '#server/services/phones'
import { liftSuppressions } from './delivery'
import { skipHeldTexts } from './outbox'

/** How often an unclear opt-out is answered with the question, at most. */
const OPT_OUT_QUESTION_EVERY_MS = 24 * 60 * 60 * 1000
/** How often words about suicide or self-harm are answered with the crisis resources, at most. */
const CRISIS_REPLY_EVERY_MS = 60 * 60 * 1000

export type InboundText = {
  messageSid: string
  from: string
  to: string
  body: string
}

export type InboundResult = {
  /** What to answer in the TwiML (null: an empty <Response/>). */
  reply: string | null
  keyword: KeywordFamily | null
  /** The text spoke of suicide or self-harm (answered with the crisis resources, at most hourly). */
  crisis: boolean
  duplicate: boolean
  /** The accounts the sender's number belongs to. */
  userIds: string[]
  /** Accounts whose consent to calls this text revoked (their placed calls are cancelled next). */
  callsRevoked: string[]
  /** Accounts a START reached (their open opt-in screens are told). */
  started: string[]
}

/** The ten digits of a US number in E.164 (+1XXXXXXXXXX), which is how accounts store numbers; null otherwise. */
function accountDigits(e164: string): string | null {
  const match = /^\+1(\d{10})$/.exec(e164.trim())
  return match ? match[1]! : null
}

/** The accounts whose number (the profile's, else the sign-up one) is `digits`: every one of them (a STOP reaches them all). */
async function accountsByNumber(db: DbExecutor, digits: string): Promise<string[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .leftJoin(profiles, eq(profiles.id, users.id))
    .where(or(eq(profiles.phoneNumber, digits), and(isNull(profiles.phoneNumber), eq(users.phoneNumber, digits))))
  return rows.map((row) => row.id)
}

/** Statements take the accounts of one number this many at a time (a bound on a statement's parameters). */
const BATCH = 1000

function batches<T>(list: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < list.length; i += BATCH) out.push(list.slice(i, i + BATCH))
  return out
}

/** Whether a text from `from` received since `since` was answered with `reply`. */
async function answeredWithin(tx: DbExecutor, from: string, reply: string, since: Date): Promise<boolean> {
  const [row] = await tx
    .select({ at: inboundTexts.receivedAt })
    .from(inboundTexts)
    .where(and(eq(inboundTexts.fromNumber, from), eq(inboundTexts.reply, reply), gt(inboundTexts.receivedAt, since)))
    .limit(1)
  return Boolean(row)
}

export async function receiveInbound(deps: { db: Db; appUrl: string; smsNumber: string }, message: InboundText, now: Date): Promise<InboundResult> {
  const exact = keywordOf(message.body)
  const inWords = exact ? null : optOutOf(message.body)
  const keyword: KeywordFamily | null = exact ?? (inWords === 'stop' ? 'stop' : null)
  // Words about suicide or self-harm come before an opt-out question (docs/decisions/058).
  const crisis = !keyword && isCrisisMessage(message.body)
  const digits = accountDigits(message.from)
  const userIds = digits ? await accountsByNumber(deps.db, digits) : []
  const none: InboundResult = { reply: null, keyword, crisis, duplicate: false, userIds, callsRevoked: [], started: [] }
  // Acted on once per sid, whoever brings it (Twilio's redelivery, the sweep of its log), even
  // when nothing else of it is kept.
  const firstTime = async (tx: DbExecutor) =>
    (await tx.insert(inboundTextReceipts).values({ messageSid: message.messageSid, receivedAt: now }).onConflictDoNothing().returning({ sid: inboundTextReceipts.messageSid })).length > 0
  if (userIds.length === 0) {
    // A STOP belongs to the phone (docs/decisions/060): from a number no account uses yet, it still
    // puts the number on the do-not-contact list, and a START from it takes it off. Nothing else of
    // a stranger's text is kept.
    return deps.db.transaction(async (tx) => {
      if (!(await firstTime(tx))) return { ...none, duplicate: true }
      if (keyword === 'stop') await stopNumber(tx, { number: message.from, source: 'inbound_text', messageSid: message.messageSid, at: now })
      if (keyword === 'start') await startNumber(tx, message.from)
      return none
    })
  }

  return deps.db.transaction(async (tx) => {
    if (!(await firstTime(tx))) return { ...none, duplicate: true }
    const [stored] = await tx
      .insert(inboundTexts)
      .values({ messageSid: message.messageSid, fromNumber: message.from, toNumber: message.to, body: message.body, keyword, matchedUsers: userIds.length, receivedAt: now })
      .onConflictDoNothing({ target: inboundTexts.messageSid })
      .returning({ messageSid: inboundTexts.messageSid })
    if (!stored) return { ...none, duplicate: true }
    // The text belongs to the accounts it reached now, whatever number they have later.
    for (const ids of batches(userIds)) await tx.insert(inboundTextAccounts).values(ids.map((userId) => ({ messageSid: message.messageSid, userId })))

    const states = await getConsentStates(tx, userIds)
    const change = (userId: string, channel: ConsentChange['channel'], action: ConsentChange['action']): ConsentChange => ({
      userId,
      channel,
      action,
      source: 'inbound_text',
      text: message.body,
      at: now,
      messageSid: message.messageSid,
      detail: { from: message.from, to: message.to, matched: exact ? 'keyword' : 'words' },
    })
    let reply: string | null = null
    const result: InboundResult = { ...none }

    if (keyword === 'stop') {
      const changes = userIds.flatMap((userId) => {
        const state = states.get(userId)!
        return [...(state.texts.granted ? [change(userId, 'texts', 'revoked')] : []), ...(state.calls.granted ? [change(userId, 'calls', 'revoked')] : [])]
      })
      for (const part of batches(changes)) await recordConsent(tx, part)
      // The number itself: no account's switch can call or text it again, only a START from it.
      const listed = await stopNumber(tx, { number: message.from, source: 'inbound_text', messageSid: message.messageSid, at: now })
      // Whatever was already off, nothing may be dialled or texted from now on.
      for (const ids of batches(userIds)) {
        await stopCallsOf(tx, ids, now)
        await skipHeldTexts(tx, ids, now)
      }
      result.callsRevoked = userIds
      reply = changes.length > 0 || listed ? STOP_REPLY : null
    } else if (keyword === 'start') {
      const changes = userIds.filter((userId) => !states.get(userId)!.texts.granted).map((userId) => change(userId, 'texts', 'granted'))
      for (const part of batches(changes)) await recordConsent(tx, part)
      const unlisted = await startNumber(tx, message.from)
      for (const ids of batches(userIds)) {
        await liftSuppressions(tx, ids, message.from)
        // A START is also the opt-in screen's step done (the text it shows is what the person answered).
        await tx
          .update(profiles)
          .set({ smsOptedInAt: now, smsOptInConsentText: optInConsentText(deps.smsNumber), updatedAt: now })
          .where(and(inArray(profiles.id, ids), isNull(profiles.smsOptedInAt)))
      }
      // START itself (not YES or UNSTOP) proves the number is the account's, when it is the only
      // account with that number: with several, the text cannot tell whose holder sent it, and
      // each proves it with a code.
      // The holders are read again inside this transaction: a phone change since the first read
      // must not leave the START proving an account that no longer, or no longer alone, holds it.
      const holders = userIds.length === 1 && isStartWord(message.body) && isCallableNumber(digits!) ? await accountsByNumber(tx, digits!) : []
      if (holders.length === 1 && holders[0] === userIds[0]) await recordProof(tx, { userId: userIds[0]!, phoneNumber: digits!, method: 'inbound_text', messageSid: message.messageSid, at: now })
      result.started = userIds
      reply = changes.length > 0 || unlisted ? START_REPLY : null
    } else if (keyword === 'help') {
      reply = helpReply(deps.appUrl)
    } else if (crisis) {
      // Where help is, whatever the person's consent (an answer to their own text): at most once an
      // hour, so a conversation in distress is not flooded with the same text.
      if (!(await answeredWithin(tx, message.from, CRISIS_REPLY, new Date(now.getTime() - CRISIS_REPLY_EVERY_MS)))) reply = CRISIS_REPLY
    } else if (inWords === 'unclear' && userIds.some((userId) => states.get(userId)!.texts.granted || states.get(userId)!.calls.granted)) {
      // Asked at most once a day: a person who talks about quitting sugar is not asked every time.
      if (!(await answeredWithin(tx, message.from, OPT_OUT_QUESTION, new Date(now.getTime() - OPT_OUT_QUESTION_EVERY_MS)))) reply = OPT_OUT_QUESTION
    }
    // Free words (no keyword, no crisis, not an opt-out question) become an episode of each account's
    // memory (docs/decisions/083), the person's words as they sent them.
    if (!keyword && !crisis && inWords === null) {
      const body = message.body.replace(/\s+/g, ' ').trim()
      const said = body.length > 600 ? `${body.slice(0, 599)}…` : body
      if (said) {
        for (const userId of userIds) {
          await applyRecord(tx, { userId, channel: 'text', sourceId: message.messageSid, key: message.messageSid, occurredAt: now.toISOString(), summary: `They texted: “${said}”`, learned: [], changed: [] })
        }
      }
    }
    if (reply) await tx.update(inboundTexts).set({ reply }).where(eq(inboundTexts.messageSid, message.messageSid))
    return { ...result, reply }
  })
}
