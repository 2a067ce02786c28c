/**
 * Texts (issue 15): the keywords an inbound text is matched against, and the words of the texts
 * the product sends. Plain ASCII throughout (GSM-7): one curly quote or dash would make a text
 * UCS-2 and triple its segments.
 */
import { z } from 'zod'
import { ANY_WORD, anywhere, normalized, notFollowedBy, oneOf, optional, repeat, seq, type Steps, wholeMessage, wordsIn } from './text-matcher'

export const BRAND = 'Momentum Coach'

/** Twilio's default opt-out words (REVOKE and OPTOUT since 2025-05-14): they revoke texts and calls. */
const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'] as const
/** Opt back in to texts (calls come back only from the app's settings). */
const START_KEYWORDS = ['START', 'UNSTOP', 'YES'] as const
const HELP_KEYWORDS = ['HELP', 'INFO'] as const

export type KeywordFamily = 'stop' | 'start' | 'help'

/**
 * The family the whole message matches, or null. Case and spaces do not count ("  Stop ", "opt out"
 * and "S T O P" all match), nor does punctuation at the end ("STOP." "stop!"); anything more in the
 * message ("stop please") is not a keyword. One pass back over the end and one over the rest, at
 * most (no regular expression: a long run of "!" must not cost its square).
 */
export function keywordOf(body: string, counter?: Steps): KeywordFamily | null {
  const word = keywordWord(body, counter)
  if (word === null) return null
  if ((STOP_KEYWORDS as readonly string[]).includes(word)) return 'stop'
  if ((START_KEYWORDS as readonly string[]).includes(word)) return 'start'
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return 'help'
  return null
}

/**
 * Whether the message is START itself (as keywordOf reads it), the word /opt-in asks for: only it
 * proves a number (docs/decisions/060). YES and UNSTOP still opt back in, but a stranger answering
 * "yes?" to a code they never asked for must not prove the account that asked.
 */
export const isStartWord = (body: string): boolean => keywordWord(body) === 'START'

/** The message as one upper-case word, without white space or end punctuation; null when it is too long to be a keyword. */
function keywordWord(body: string, counter?: Steps): string | null {
  const text = normalized(body, counter)
  // White space does not count anywhere, nor punctuation at the end (after the white space is gone).
  let end = text.length
  while (end > 0) {
    const c = text.charCodeAt(end - 1)
    if (!isWhiteSpace(c) && !isEndPunctuation(c)) break
    end--
  }
  // What is left, without its white space. Upper case never gives fewer characters than it is given
  // (each character becomes one or more), so past twice the longest keyword (in UTF-16 units: a
  // character may take two) nothing is one.
  let word = ''
  let i = 0
  for (; i < end && word.length <= 2 * LONGEST_KEYWORD; i++) if (!isWhiteSpace(text.charCodeAt(i))) word += text.charAt(i)
  if (counter) counter.steps += text.length - end + i
  if (word.length > 2 * LONGEST_KEYWORD) return null
  return word.toUpperCase()
}

const LONGEST_KEYWORD = Math.max(...[...STOP_KEYWORDS, ...START_KEYWORDS, ...HELP_KEYWORDS].map((keyword) => keyword.length))

/** What may end a keyword and not count ("STOP." "stop!"): . ! ? , ; : */
const isEndPunctuation = (c: number) => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2c || c === 0x3b || c === 0x3a

/** JavaScript's white space and line ends: what /\s/ matches (test/unit/texts-matcher.test.ts checks every code unit). */
function isWhiteSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) || // tab, line feed, vertical tab, form feed, carriage return
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
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
 * The message is read once, word by word, whatever it holds (docs/decisions/062); `counter` counts
 * the work.
 */
export function optOutOf(body: string, counter?: Steps): 'stop' | 'unclear' | null {
  const text = wordsIn(body, counter)
  if (text.words.length === 0) return null
  if (WHOLE_REQUEST.test(text, counter)) return 'stop'
  if (OPT_OUT_WORDS.test(text, counter)) return 'unclear'
  return null
}

// The phrase tables. A string is a phrase: words separated by single spaces, "don't" as typed; a
// message is read as lower-case words (punctuation counts as a space). `oneOf`, `seq`, `optional`,
// `repeat` and `ANY_WORD` put them together (common/text-matcher.ts).

/** What texts and calls are called. */
const COMM = oneOf(
  'text', 'texts', 'text message', 'text messages', 'txt', 'txts', 'message', 'messages', 'messaging', 'sms',
  'call', 'calls', 'calling', 'coaching call', 'coaching calls', 'phone call', 'phone calls',
  'notification', 'notifications', 'reminder', 'reminders',
)
/** Politeness and emphasis around a request ("please", "now", "thanks"). */
const SOFT = oneOf(
  'please', 'pls', 'plz', 'kindly', 'now', 'right now', 'immediately', 'asap', 'thanks', 'thank you', 'thx', 'ok', 'okay',
  'already', 'just', 'for good', 'anymore', 'any more', 'again', 'ever', 'at all', 'seriously',
)
/** What a request applies to: "me", "these texts", "texts and calls", "from this list", "my number". */
const OBJECT = oneOf(
  'me', 'us', 'it', 'this', 'that', 'all', 'everything', 'them', 'these', 'those', 'my number', 'me out',
  seq(
    optional(oneOf('the', 'your', 'these', 'those', 'all', 'all the', 'all your', 'any', 'any more', 'any of your', 'more')),
    COMM,
    optional(seq(oneOf('and', 'or', 'nor'), COMM)),
  ),
  seq(oneOf('texting', 'messaging', 'calling', 'contacting', 'bothering', 'spamming'), 'me'),
  seq(oneOf('off', 'from', 'on', 'to'), oneOf('this', 'these', 'that', 'your', 'all', 'the'), optional(ANY_WORD)),
)
/** How a request may open: "please", "can you", "I want to", "I" (any number of them). */
const OPENING = repeat(
  oneOf(
    'please', 'pls', 'plz', 'kindly', 'just', 'hey', 'hi', 'hello', 'ok', 'okay', 'sorry', 'no',
    'can you', 'could you', 'would you', 'can u', 'will you', 'i want to', "i'd like to", 'id like to', 'i would like to',
    'i wish to', 'i need to', 'i want you to', 'you can', 'i', "i'd", "i'm", 'im', 'i am',
  ),
)
const NOT = oneOf("don't", 'dont', 'do not')
/** Requests for no more texts or calls (whole-message; "end" has its own, narrower form). */
const REQUEST = oneOf(
  'stop', 'stopall', 'stop all', 'quit', 'revoke', 'cancel', 'unsubscribe', 'unsub', 'opt out', 'optout', 'opt me out',
  seq(oneOf('stop', 'quit', 'cease', 'end'), oneOf('texting', 'messaging', 'calling', 'contacting', 'sending', 'bothering', 'spamming')),
  seq(
    oneOf(NOT, 'never', 'no longer'),
    oneOf('text', 'txt', 'message', 'msg', 'call', 'contact', 'sms'),
    optional(seq(oneOf('or', 'and', 'nor'), oneOf('text', 'txt', 'message', 'msg', 'call', 'contact'))),
  ),
  seq(NOT, 'send'),
  seq(oneOf(NOT, 'no longer'), oneOf('want', 'need')),
  'no more',
  'remove', 'delete', 'take',
  'leave me alone',
  'wrong number',
  seq(oneOf('withdraw', 'revoke', 'cancel', 'take back'), optional(oneOf('my', 'all')), oneOf('consent', 'permission')),
)
/**
 * The whole message is a request, with nothing around it but politeness and what it applies to.
 * "End" is an opt-out word too, but only about the texts and calls ("end", "end these texts"):
 * never "end it all".
 */
const WHOLE_REQUEST = wholeMessage(
  oneOf(
    seq(OPENING, REQUEST, repeat(oneOf(SOFT, OBJECT))),
    seq(OPENING, 'end', repeat(oneOf(SOFT, seq(optional(oneOf('the', 'your', 'these', 'all', 'all the')), COMM)))),
  ),
)
/** The same words inside something else: worth one question. */
const OPT_OUT_WORDS = anywhere(
  oneOf(
    'stop', 'stopping', 'quit', 'cancel', 'unsubscribe', 'unsub', 'optout', 'revoke', 'withdraw',
    seq(oneOf('opt', 'opting'), optional('me'), 'out'),
    seq(oneOf(NOT, 'no longer'), oneOf('text', 'txt', 'message', 'msg', 'call', 'contact', 'sms', 'send')),
    seq(oneOf('no more', seq(oneOf(NOT, 'no longer'), oneOf('want', 'need'))), optional(ANY_WORD), COMM),
    'leave me alone',
    'wrong number',
    seq(oneOf('remove', 'delete', 'take'), oneOf('me', 'my number'), oneOf('off', 'from')),
  ),
)

/**
 * Words about suicide or self-harm (docs/decisions/058). Chosen to be said about oneself and not
 * in passing: "kill myself", "end it all", "want to die", "suicidal", "self harm"; "I'm dying to
 * try it", "this workout is killing me", "suicide sprints", "I hurt myself at the gym" and "cut
 * myself some slack" are not. A figure of speech that matches ("I could kill
 * myself for forgetting") gets the resources too: the cost of that is one text.
 */
const MYSELF = oneOf('myself', 'my self')
const CRISIS_WORDS = anywhere(
  oneOf(
    // Not the drills ("suicide sprints").
    notFollowedBy(oneOf('suicide', 'suicidal'), oneOf('sprint', 'sprints', 'run', 'runs', 'drill', 'drills', 'shuttle', 'shuttles', 'line', 'lines')),
    seq(oneOf('kill', 'killing', 'harm', 'harming'), MYSELF),
    // Not an injury ("hurt myself at the gym") nor kindness ("cut myself some slack").
    notFollowedBy(seq(oneOf('hurt', 'hurting'), MYSELF), oneOf('at', 'during', 'while', 'in', 'on', 'playing', 'running', 'lifting', 'training', 'working')),
    notFollowedBy(seq(oneOf('cut', 'cutting'), MYSELF), seq(oneOf('some', 'a', 'any'), oneOf('slack', 'break'))),
    'self harm', 'selfharm', 'self harming', 'selfharming',
    seq('end', oneOf('it all', 'my life', 'my own life')),
    seq('take my', optional('own'), 'life'),
    seq(oneOf('want', 'wanna', 'going', 'gonna', 'ready', 'planning', 'plan'), 'to die'),
    seq(NOT, 'want to', oneOf('live', 'be alive', 'exist', 'be here anymore', 'wake up')),
    seq('no reason to', oneOf('live', 'go on')),
    'better off dead',
  ),
)

/** Every word of the phrase tables above (the bench's plain `includes` scan looks for each). */
export const PHRASE_VOCABULARY: readonly string[] = [...new Set([...WHOLE_REQUEST.vocabulary, ...OPT_OUT_WORDS.vocabulary, ...CRISIS_WORDS.vocabulary])]

/** Whether a text speaks of suicide or self-harm (docs/decisions/058), read once, word by word. */
export function isCrisisMessage(body: string, counter?: Steps): boolean {
  const text = wordsIn(body, counter)
  return text.words.length > 0 && CRISIS_WORDS.test(text, counter)
}

/** Where help is, now (the US's 988 and 911). */
export const CRISIS_RESOURCES = 'If you are thinking about suicide or hurting yourself, you are not alone. Call or text 988 (Suicide & Crisis Lifeline) any time, or call 911 if you are in danger now.'

/** The answer to such a text (the coach is an AI). */
export const CRISIS_REPLY = `${BRAND}: ${CRISIS_RESOURCES} Your coach is an AI and cannot help in a crisis.`

/** The one question back to an unclear opt-out (no marketing; the FCC allows one, within 5 minutes). */
export const OPT_OUT_QUESTION = `${BRAND}: Do you want to stop texts and coaching calls from us? Reply STOP to unsubscribe.`

/** The one answer to a STOP that changed something: what stopped, and how each comes back. */
export const STOP_REPLY = `${BRAND}: You are unsubscribed. You will get no more texts or coaching calls from us. Reply START to get texts again; calls can then be turned back on in the app.`

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
