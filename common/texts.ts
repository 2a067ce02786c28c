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
