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
 * - 'stop': the whole message is such a request, with nothing around it but politeness and what it
 *   applies to ("stop texting me please", "unsubscribe me", "do not text or call me", "remove my
 *   number", "I no longer want these texts") - revoked as a STOP is;
 * - 'unclear': such words inside something else ("I can't stop snacking", "don't call me before
 *   9am", "no more calls this week, I'm away"): one question back (the FCC allows one, within 5
 *   minutes, no marketing), nothing changed;
 * - null: anything else.
 */
export function optOutOf(body: string): 'stop' | 'unclear' | null {
  const text = wordsOf(body)
  if (!text) return null
  if (OPT_OUT_REQUEST.test(text) || END_REQUEST.test(text)) return 'stop'
  if (OPT_OUT_WORDS.some((words) => words.test(text))) return 'unclear'
  return null
}

/** What texts and calls are called. */
const COMM = String.raw`(?:texts?|text messages?|txts?|messages?|messaging|sms|calls?|calling|coaching calls?|phone calls?|notifications?|reminders?)`
/** Politeness and emphasis around a request ("please", "now", "thanks"). */
const SOFT = String.raw`(?:please|pls|plz|kindly|now|right now|immediately|asap|thanks|thank you|thx|ok|okay|already|just|for good|anymore|any more|again|ever|at all|seriously)`
/** What a request applies to: "me", "these texts", "texts and calls", "from this list", "my number". */
const OBJECT = String.raw`(?:me|us|it|this|that|all|everything|them|these|those|my number|me out|(?:the |your |these |those |all |all the |all your |any |any more |any of your |more )?${COMM}(?: (?:and|or|nor) ${COMM})?|(?:texting|messaging|calling|contacting|bothering|spamming) me|(?:off|from|on|to) (?:this|these|that|your|all|the)(?: \w+)?)`
/** How a request may open: "please", "can you", "I want to", "I". */
const OPENING = String.raw`(?:(?:please|pls|plz|kindly|just|hey|hi|hello|ok|okay|sorry|no|can you|could you|would you|can u|will you|i want to|i'd like to|id like to|i would like to|i wish to|i need to|i want you to|you can|i|i'd|i'm|im|i am)\s)*`
/** Requests for no more texts or calls (whole-message; "end" has its own, narrower form). */
const REQUEST = [
  String.raw`(?:stop|stopall|stop all|quit|revoke|cancel|unsubscribe|unsub|opt ?out|optout|opt me out)`,
  String.raw`(?:stop|quit|cease|end) (?:texting|messaging|calling|contacting|sending|bothering|spamming)`,
  String.raw`(?:don't|dont|do not|never|no longer) (?:text|txt|message|msg|call|contact|sms)(?: (?:or|and|nor) (?:text|txt|message|msg|call|contact))?`,
  String.raw`(?:don't|dont|do not) send`,
  String.raw`(?:don't|dont|do not|no longer) (?:want|need)`,
  String.raw`no more`,
  String.raw`(?:remove|delete|take)`,
  String.raw`leave me alone`,
  String.raw`wrong number`,
  String.raw`(?:withdraw|revoke|cancel|take back)(?: my| all)? (?:consent|permission)`,
].join('|')
const OPT_OUT_REQUEST = new RegExp(String.raw`^${OPENING}(?:${REQUEST})(?: (?:${SOFT}|${OBJECT}))*$`)
/** "End" is an opt-out word too, but only about the texts and calls ("end", "end these texts"): never "end it all". */
const END_REQUEST = new RegExp(String.raw`^${OPENING}end(?: (?:${SOFT}|(?:the |your |these |all |all the )?${COMM}))*$`)
/** The same words inside something else: worth one question. */
const OPT_OUT_WORDS: readonly RegExp[] = [
  /\b(?:stop|stopping|quit|cancel|unsubscribe|unsub|optout|revoke|withdraw)\b/,
  /\bopt(?:ing)? (?:me )?out\b/,
  /\b(?:don't|dont|do not|no longer) (?:text|txt|message|msg|call|contact|sms|send)\b/,
  new RegExp(String.raw`\b(?:no more|(?:don't|dont|do not|no longer) (?:want|need))(?: \w+)? ${COMM}\b`),
  /\bleave me alone\b/,
  /\bwrong number\b/,
  /\b(?:remove|delete|take) (?:me|my number) (?:off|from)\b/,
]

/** A message as the word patterns read it: lower case, straight apostrophes, letters, digits and single spaces. */
function wordsOf(body: string): string {
  return body
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * Words about suicide or self-harm (docs/decisions/058). Chosen to be said about oneself and not
 * in passing: "kill myself", "end it all", "want to die", "suicidal", "self harm"; "I'm dying to
 * try it", "this workout is killing me", "suicide sprints", "I hurt myself at the gym" and "cut
 * myself some slack" are not. A figure of speech that matches ("I could kill
 * myself for forgetting") gets the resources too: the cost of that is one text.
 */
const CRISIS_WORDS: readonly RegExp[] = [
  // Not the drills ("suicide sprints").
  /\bsuicid(?:e|al)\b(?! (?:sprints?|runs?|drills?|shuttles?|lines?)\b)/,
  /\b(?:kill|killing|harm|harming) (?:myself|my self)\b/,
  // Not an injury ("hurt myself at the gym") nor kindness ("cut myself some slack").
  /\b(?:hurt|hurting) (?:myself|my self)\b(?! (?:at|during|while|in|on|playing|running|lifting|training|working)\b)/,
  /\b(?:cut|cutting) (?:myself|my self)\b(?! (?:some|a|any) (?:slack|break)\b)/,
  /\bself ?harm(?:ing)?\b/,
  /\bend (?:it all|my life|my own life)\b/,
  /\btake my (?:own )?life\b/,
  /\b(?:want|wanna|going|gonna|ready|planning|plan) to die\b/,
  /\b(?:don't|dont|do not) want to (?:live|be alive|exist|be here anymore|wake up)\b/,
  /\bno reason to (?:live|go on)\b/,
  /\bbetter off dead\b/,
]

/** Whether a text speaks of suicide or self-harm (docs/decisions/058). */
export function isCrisisMessage(body: string): boolean {
  const text = wordsOf(body)
  return text !== '' && CRISIS_WORDS.some((words) => words.test(text))
}

/** Where help is, now (the US's 988 and 911). */
export const CRISIS_RESOURCES = 'If you are thinking about suicide or hurting yourself, you are not alone. Call or text 988 (Suicide & Crisis Lifeline) any time, or call 911 if you are in danger now.'

/** The answer to such a text (the coach is an AI). */
export const CRISIS_REPLY = `${BRAND}: ${CRISIS_RESOURCES} Your coach is an AI and cannot help in a crisis.`

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
