/**
 * Texts (issue 15): the keywords an inbound text is matched against, and the words of the texts
 * the product sends. Plain ASCII throughout (GSM-7): one curly quote or dash would make a text
 * UCS-2 and triple its segments.
 */
import { z } from 'zod'

export const BRAND = 'Momentum Coach'

/** Twilio's default opt-out words (REVOKE and OPTOUT since 2025-05-14): they revoke texts and calls. */
export const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'] as const
/** Opt back in to texts (calls come back only from the app's settings). */
export const START_KEYWORDS = ['START', 'UNSTOP', 'YES'] as const
export const HELP_KEYWORDS = ['HELP', 'INFO'] as const

export type KeywordFamily = 'stop' | 'start' | 'help'

/**
 * The family the whole message matches, or null. Case and spaces do not count ("  Stop ", "opt out"
 * and "S T O P" all match), nor does punctuation at the end ("STOP." "stop!"); anything more in the
 * message ("stop please") is not a keyword.
 */
export function keywordOf(body: string): KeywordFamily | null {
  const word = body
    .normalize('NFKC')
    .replace(/\s+/g, '')
    .replace(/[.!?,;:]+$/, '')
    .toUpperCase()
  if ((STOP_KEYWORDS as readonly string[]).includes(word)) return 'stop'
  if ((START_KEYWORDS as readonly string[]).includes(word)) return 'start'
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return 'help'
  return null
}

/**
 * An opt-out in the person's own words (docs/decisions/057). The FCC's rule (47 CFR
 * 64.1200(a)(10), from 2025-04-11) lets a person revoke consent "by any reasonable means": a reply
 * using stop, quit, end, revoke, opt out, cancel or unsubscribe is a revocation per se, and other
 * wording counts when it plainly asks for no more texts or calls. Twilio acts only on the whole-
 * message keywords (keywordOf), so these are ours to honour:
 * - 'stop': the message asks to stop ("stop texting me", "please unsubscribe me", "don't call me
 *   again", "leave me alone", "I want to opt out") - revoked as a STOP is;
 * - 'unclear': it uses stop, quit or cancel for something else, perhaps ("I can't stop snacking",
 *   "cancel my 3pm"): one question back (allowed within 5 minutes, no marketing), nothing changed;
 * - null: anything else.
 */
export function optOutOf(body: string): 'stop' | 'unclear' | null {
  const text = body
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  if (!text) return null
  if (OPT_OUT_COMMAND.test(text) || OPT_OUT_PHRASES.some((phrase) => phrase.test(text))) return 'stop'
  if (/\b(stop|stopping|quit|cancel)\b/.test(text)) return 'unclear'
  return null
}

/** Politeness and emphasis around a request ("please", "now", "thanks"). */
const SOFT = String.raw`(?:please|pls|plz|kindly|now|right now|immediately|asap|thanks|thank you|thx|ok|okay|already|just|for good|anymore|any more|again)`
/** What a stop applies to ("me", "texting me", "these messages", "all calls"). */
const OBJECT = String.raw`(?:me|it|this|that|all|everything|them|these|those|(?:the |your |these |all |all the |all your )?(?:texts?|text messages?|messages?|messaging|sms|calls?|calling|coaching calls?|notifications?|reminders?|list)|(?:texting|messaging|calling|contacting|bothering|spamming) me|me out|from (?:this|these|that|your|all|the)(?: \w+)?)`
/** The whole message is a revocation word with only softeners and objects around it ("stop please", "STOP texting me!"). */
const OPT_OUT_COMMAND = new RegExp(String.raw`^(?:${SOFT} )*(?:stop|stop all|stopall|quit|end|revoke|cancel|unsubscribe|opt ?out|optout)(?: (?:${SOFT}|${OBJECT}))*$`)
/** Requests anywhere in a message that can only mean "no more texts or calls". */
const OPT_OUT_PHRASES: readonly RegExp[] = [
  /\bunsubscribe\b/,
  /\bopt(?:ing)? ?(?:me )?out\b/,
  /\boptout\b/,
  /\brevoke\b.*\b(?:consent|permission|texts?|calls?|messages?)\b/,
  /\b(?:stop|quit|cease) (?:texting|messaging|calling|contacting|sending|bothering|spamming|harassing)\b/,
  /\b(?:don't|dont|do not|never|no longer) (?:text|txt|message|msg|call|contact|sms) me\b/,
  /\b(?:don't|dont|do not) (?:want|need) (?:any |your |these |the )?(?:more )?(?:texts?|messages|calls|coaching calls)\b/,
  /\bno more (?:texts?|messages|calls|coaching calls)\b/,
  /\b(?:remove|delete|take) me (?:off|from)\b/,
  /\bleave me alone\b/,
  /\bwrong number\b/,
]

/** The one question back to an unclear opt-out (no marketing; the FCC allows one, within 5 minutes). */
export const OPT_OUT_QUESTION = `${BRAND}: Do you want to stop texts and coaching calls from us? Reply STOP to unsubscribe.`

/** The one answer to a STOP that changed something: what stopped, and how each comes back. */
export const STOP_REPLY = `${BRAND}: You are unsubscribed. You will get no more texts or coaching calls from us. Reply START to get texts again; turn calls back on in the app under Call schedule.`

/** The answer to START (texts only: calls stay as they are). */
export const START_REPLY = `${BRAND}: You will now get coaching texts (call recaps, missed calls, weekly reports; up to 3 a day). Msg & data rates may apply. Reply HELP for help, STOP to opt out.`

/** The answer to HELP / INFO: what the service is and how to reach support. */
export function helpReply(appUrl: string): string {
  return `${BRAND}: AI coaching calls and texts about your goals. Help and settings: ${appUrl} (sign in). Msg & data rates may apply. Reply STOP to opt out.`
}

/** Added to the first text a person gets in a week (Monday to Sunday, their time). */
export const WEEKLY_FOOTER = 'Reply STOP to opt out.'

/** The server-sent event the opt-in screen listens for: a START from the person's own number arrived. */
export const TextOptInEventSchema = z.object({ type: z.literal('text-opt-in'), at: z.iso.datetime({ offset: true }) })
export type TextOptInEvent = z.infer<typeof TextOptInEventSchema>
