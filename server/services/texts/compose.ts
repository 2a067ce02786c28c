/**
 * The words of the outbound texts: the recap, the missed-call text, the weekly report's link, the
 * coach's message notice, and
 * the brand and footer every text gets. Bodies stay in GSM-7 where the content allows it (look-alike
 * punctuation is replaced), and within two segments.
 */
import { PHONE_CODE_TTL_MINUTES } from '#common/account'
import { BRAND, WEEKLY_FOOTER } from '#common/texts'

/** GSM 03.38's basic set (the extension set's characters count twice). */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
)
const GSM_EXTENDED = new Set('^{}\\[~]|€\f')

/** Unicode look-alikes a summary or a commitment may carry, and their GSM-7 forms. */
const LOOK_ALIKES: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u2033': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u00A0': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u2022': '-',
  '\u00B7': '-',
  '\t': ' ',
}

/** Look-alike punctuation replaced by its GSM-7 form, runs of spaces collapsed. */
export function toGsmFriendly(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u201C\u201D\u201E\u2033\u2013\u2014\u2015\u2212\u2026\u00A0\u2009\u200A\u202F\u2022\u00B7\t]/g, (c) => LOOK_ALIKES[c] ?? c)
    .replace(/[ \n\r]+/g, ' ')
    .trim()
}

export function isGsm7(text: string): boolean {
  for (const c of text) if (!GSM_BASIC.has(c) && !GSM_EXTENDED.has(c)) return false
  return true
}

/** How many segments a body takes (GSM-7: 160, then 153 each; UCS-2: 70, then 67, in UTF-16 units). */
export function segmentsOf(text: string): number {
  if (isGsm7(text)) {
    let units = 0
    for (const c of text) units += GSM_EXTENDED.has(c) ? 2 : 1
    return units <= 160 ? 1 : Math.ceil(units / 153)
  }
  const units = text.length
  return units <= 70 ? 1 : Math.ceil(units / 67)
}

/** The longest body a text may have: two segments. */
const MAX_SEGMENTS = 2

/** Shortens `text` (at a word where it can) with "..." until `fits` accepts it. */
function shortenToFit(text: string, fits: (candidate: string) => boolean): string {
  if (fits(text)) return text
  let low = 0
  let high = text.length
  // The longest prefix that fits (binary search on its length).
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (fits(`${text.slice(0, mid).trimEnd()}...`)) low = mid
    else high = mid - 1
  }
  let cut = text.slice(0, low)
  const space = cut.lastIndexOf(' ')
  if (space > low * 0.6) cut = cut.slice(0, space)
  return `${cut.trimEnd()}...`
}

/** The body as it leaves: the brand first, and the opt-out footer on the person's first text of the week. */
export function finalBody(content: string, firstOfWeek: boolean): string {
  return `${BRAND}: ${content}${firstOfWeek ? ` ${WEEKLY_FOOTER}` : ''}`
}

/** The room the content of a text has once the brand and the footer are added (the footer counted always). */
const contentFits = (content: string) => segmentsOf(finalBody(content, true)) <= MAX_SEGMENTS

/**
 * The recap of a completed call: its summary, the commitments made (from the call's structured
 * output, as stored), and the link to the call in the app. The summary gives way first, then the
 * commitments; the link is always whole.
 */
export function recapContent(input: { summary: string | null; commitments: readonly string[]; link: string }): string {
  const summary = input.summary ? toGsmFriendly(input.summary) : ''
  const commitments = input.commitments.map(toGsmFriendly).filter((item) => item.length > 0)
  const link = `Details: ${input.link}`
  const compose = (summaryPart: string, commitmentPart: string) =>
    [summaryPart ? `Call recap: ${summaryPart}` : 'Call recap.', commitmentPart ? `You committed to: ${commitmentPart}` : '', link].filter(Boolean).join(' ')
  const commitmentText = commitments.map((item) => (/[.!?]$/.test(item) ? item : `${item}.`)).join(' ')
  // The commitments whole, the summary shortened to what is left.
  const withAll = (summaryPart: string) => compose(summaryPart, commitmentText)
  if (contentFits(withAll(summary))) return withAll(summary)
  if (contentFits(withAll('x...'))) {
    const room = shortenToFit(summary, (candidate) => contentFits(withAll(candidate)))
    return withAll(room)
  }
  // Too many commitments: a short summary, the commitments shortened.
  const shortSummary = shortenToFit(summary, (candidate) => candidate.length <= 60)
  const commitmentRoom = shortenToFit(commitmentText, (candidate) => contentFits(compose(shortSummary, candidate)))
  return compose(shortSummary, commitmentRoom)
}

/** "10:10 AM" from "10:10". */
function clockTime(hhmm: string): string {
  const [h, m] = hhmm.split(':').map(Number) as [number, number]
  const period = h < 12 ? 'AM' : 'PM'
  const hour = h % 12 === 0 ? 12 : h % 12
  return `${hour}:${String(m).padStart(2, '0')} ${period}`
}

export type MissedCallNext =
  /** A retry of the same call, at a local time today. */
  | { kind: 'retry'; localTime: string }
  /** No retry: the next call, at a local time, today, tomorrow or on a named day. */
  | { kind: 'next'; localTime: string; day: 'today' | 'tomorrow' | string }
  /** Nothing planned (calls paused, off...). */
  | { kind: 'none' }

/** The missed-call text: that the coach called, and when the next try is. */
export function missedCallContent(input: { slotLabel: string; next: MissedCallNext; link: string }): string {
  const opening = `Your coach tried to reach you for your ${input.slotLabel} but could not get through.`
  switch (input.next.kind) {
    case 'retry':
      return `${opening} We will call again at ${clockTime(input.next.localTime)}.`
    case 'next':
      return `${opening} Your next call is ${input.next.day === 'today' || input.next.day === 'tomorrow' ? input.next.day : `on ${input.next.day}`} at ${clockTime(input.next.localTime)}.`
    case 'none':
      return `${opening} See your call schedule: ${input.link}`
  }
}

/** The weekly report's text: its link. */
export function weeklyReportContent(input: { link: string; weekLabel?: string | undefined }): string {
  return `Your weekly progress report${input.weekLabel ? ` for ${toGsmFriendly(input.weekLabel)}` : ''} is ready: ${input.link}`
}

/**
 * The text that the person's coach wrote (Elite's thread): who, and the link to read it. Never the
 * message's words: a text shows on a locked screen, and the thread is where the reply goes.
 */
export function coachMessageContent(input: { coachName: string; count: number; link: string }): string {
  const firstName = toGsmFriendly(input.coachName).split(' ')[0] ?? ''
  const what = input.count === 1 ? 'a message' : `${input.count} messages`
  const named = `Your coach ${firstName} sent you ${what}. Read and reply: ${input.link}`
  // A name too long for two segments (or one outside GSM-7 that makes the text UCS-2) gives way.
  return firstName && contentFits(named) ? named : `Your coach sent you ${what}. Read and reply: ${input.link}`
}

/**
 * The text with a code (one segment): to confirm a new phone number (the account page), or to
 * prove the account's number ("Verify your number"). No consent is asked for by it, and it says
 * how to stop any more.
 */
export function phoneCodeBody(code: string, purpose: 'change' | 'proof' = 'change'): string {
  const what = purpose === 'change' ? 'confirm this number for your account' : 'verify this number for your coaching calls'
  return finalBody(`${code} is your code to ${what}. It expires in ${PHONE_CODE_TTL_MINUTES} minutes. Not you? Ignore this text, or reply STOP.`, false)
}
