/**
 * Inbound texts built to make a word matcher work hard (issue 31, item 4; docs/decisions/062): one
 * per phrase family, each as long as Twilio delivers (1,600 characters), with the answers the
 * product gives them. test/unit/texts-matcher.test.ts bounds their steps; `npm run bench --
 * texts-matcher` times them. Also random texts of the tables' words, noise and punctuation.
 */
import { PHRASE_VOCABULARY } from '#common/texts'

/** The longest text Twilio delivers. */
export const TWILIO_MAX = 1600

/** `head`, then `unit` as many times as fits in 1,600 characters with `tail`, then `tail`. */
export const craft = (head: string, unit: string, tail: string) => head + unit.repeat(Math.floor((TWILIO_MAX - head.length - tail.length) / unit.length)) + tail

export type CraftedText = {
  family: string
  body: string
  /** What keywordOf, optOutOf and isCrisisMessage answer. */
  keyword: 'stop' | null
  optOut: 'stop' | 'unclear' | null
  crisis: boolean
}

const text = (family: string, body: string, optOut: CraftedText['optOut'], more: Partial<CraftedText> = {}): CraftedText => ({ family, body, keyword: null, optOut, crisis: false, ...more })

export const CRAFTED_TEXTS: readonly CraftedText[] = [
  // The review's kind: each "all texts" is one object ("all " + texts) or two ("all", "texts"), so
  // a backtracking matcher tries 2^n splits before the last word fails.
  text('objects that split two ways, then a word that fails', craft('stop ', 'all texts ', 'x'), 'unclear'),
  text('the same, ending well (the whole text is a request)', craft('stop ', 'all texts ', 'now'), 'stop'),
  text('"any more" (soft) or "any more texts" (object)', craft('stop ', 'any more texts ', 'x'), 'unclear'),
  text('alternating soft and object words', craft('stop ', 'please me now it thank you these texts ', 'x'), 'unclear'),
  text('texts and calls or texts ... (and / or / nor)', craft('stop ', 'texts and calls or ', 'x'), 'unclear'),
  text('"off this" then any word, which is also an object', craft('stop ', 'off this ', 'x'), 'stop'),
  text('a long run of openings ("i", one word at a time), the request last, then a word that fails', craft('', 'i ', 'stop x'), 'unclear'),
  text('openings that are prefixes of each other ("i", "i want to", "can you", "you can")', craft('', 'please can you i want to i you can ', 'stop x'), 'unclear'),
  text('"end" with its texts (the narrower form), then a word that fails', craft('end ', 'all the texts ', 'x'), null),
  text('stop stop stop ... x', craft('', 'stop ', 'x'), 'unclear'),
  text("don't don't don't ... x", craft('', "don't ", 'x'), null),
  text('don\u2019t with curly apostrophes', craft('', 'don\u2019t ', 'x'), null),
  text('no more no more ... x', craft('', 'no more ', 'x'), null),
  text('words that are prefixes of phrases', craft('', 'opt opting me do not no longer take my own end it no reason to better off self cut ', 'x'), null),
  text('a crisis word each time ruled out by what follows it (suicide sprints)', craft('', 'suicide sprints ', ''), null),
  text('a two-word look ahead each time (cut myself some slack)', craft('', 'cut myself some slack ', ''), null),
  text('hurting my self at ... (a look ahead each time)', craft('', 'hurting my self at ', ''), null),
  text("crisis prefixes that never end (don't want to ...)", craft('', "don't want to ", 'x'), null),
  text('punctuation after a keyword (quadratic for /[.!?,;:]+$/)', craft('STOP', '!', 'x'), 'unclear'),
  text('punctuation ending a keyword', craft('STOP', '!?.,;:', ''), 'stop', { keyword: 'stop' }),
  text('apostrophes', craft('stop', "'", 'x'), 'unclear'),
  text('white space of every kind between the letters of a keyword', craft('S', ' \t\n\u00a0\u2028\ufeff\u3000', 'TOP'), null, { keyword: 'stop' }),
  text('one long word', craft('', 'a', ''), null),
  text('characters NFKC lengthens ("\u24a4" reads as "(i)": three characters, one word)', craft('', '\u24a4', 'stop x'), 'unclear'),
  text('the character NFKC lengthens most (U+FDFA, 18 characters once normalised, none of them a letter of ours)', craft('', '\ufdfa', 'stop x'), 'unclear'),
]

const NOISE = ['x', 'gym', 'stopp', 'run', '9am', 'k', 'lol', 'the', 'ok', 'yes', 'STOP', 'Stop', 'END', 'opt', 'my', 'self', 'harm', 'ü', 'é', '💪', '\u24a4']
const SEPARATORS = [' ', ' ', ' ', ' ', '  ', ', ', '. ', '!', '?', "'", '\u2019', "' ", " '", '-', '\n', '\t', '', '…', '"', ':', '\u00a0']

/** A random text of up to `max` characters: words of the phrase tables (4 in 5) and noise, between separators. */
export function randomText(random: () => number, max = TWILIO_MAX): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const length = Math.floor(random() * (max + 1))
  let body = ''
  while (body.length < length) {
    const word = random() < 0.8 ? pick(PHRASE_VOCABULARY) : pick(NOISE)
    body += (random() < 0.1 ? word.toUpperCase() : word) + pick(SEPARATORS)
  }
  return body.slice(0, length)
}

/** A seeded pseudo-random generator (mulberry32), so a run can be repeated. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
