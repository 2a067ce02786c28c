/**
 * No text can stall a server (issue 31, item 4; docs/decisions/062): the words of an inbound text
 * are matched in linear time. The work is counted in steps (characters read, automaton states
 * visited, words looked up), never timed: for crafted 1,600-character texts built to defeat each
 * phrase family, and for random texts of up to 1,600 characters. The answers are the old regular
 * expressions' answers, checked against a copy of them (the oracle below) on short texts, where
 * they are fast.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anywhere, notFollowedBy, oneOf, repeat, seq, type Steps, wholeMessage, wordNumber, wordsIn } from '#common/text-matcher'
import { isCrisisMessage, keywordOf, optOutOf, PHRASE_VOCABULARY } from '#common/texts'
import { CRAFTED_TEXTS, TWILIO_MAX } from '../helpers/crafted-texts'

// ---------------------------------------------------------------------------------------------
// The oracle: common/texts.ts's regular expressions before docs/decisions/062, copied unchanged.
// They backtrack exponentially on long crafted texts: run them on short texts only.
// ---------------------------------------------------------------------------------------------
const OLD_COMM = String.raw`(?:texts?|text messages?|txts?|messages?|messaging|sms|calls?|calling|coaching calls?|phone calls?|notifications?|reminders?)`
const OLD_SOFT = String.raw`(?:please|pls|plz|kindly|now|right now|immediately|asap|thanks|thank you|thx|ok|okay|already|just|for good|anymore|any more|again|ever|at all|seriously)`
const OLD_OBJECT = String.raw`(?:me|us|it|this|that|all|everything|them|these|those|my number|me out|(?:the |your |these |those |all |all the |all your |any |any more |any of your |more )?${OLD_COMM}(?: (?:and|or|nor) ${OLD_COMM})?|(?:texting|messaging|calling|contacting|bothering|spamming) me|(?:off|from|on|to) (?:this|these|that|your|all|the)(?: \w+)?)`
const OLD_OPENING = String.raw`(?:(?:please|pls|plz|kindly|just|hey|hi|hello|ok|okay|sorry|no|can you|could you|would you|can u|will you|i want to|i'd like to|id like to|i would like to|i wish to|i need to|i want you to|you can|i|i'd|i'm|im|i am)\s)*`
const OLD_REQUEST = [
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
const OLD_OPT_OUT_REQUEST = new RegExp(String.raw`^${OLD_OPENING}(?:${OLD_REQUEST})(?: (?:${OLD_SOFT}|${OLD_OBJECT}))*$`)
const OLD_END_REQUEST = new RegExp(String.raw`^${OLD_OPENING}end(?: (?:${OLD_SOFT}|(?:the |your |these |all |all the )?${OLD_COMM}))*$`)
const OLD_OPT_OUT_WORDS: readonly RegExp[] = [
  /\b(?:stop|stopping|quit|cancel|unsubscribe|unsub|optout|revoke|withdraw)\b/,
  /\bopt(?:ing)? (?:me )?out\b/,
  /\b(?:don't|dont|do not|no longer) (?:text|txt|message|msg|call|contact|sms|send)\b/,
  new RegExp(String.raw`\b(?:no more|(?:don't|dont|do not|no longer) (?:want|need))(?: \w+)? ${OLD_COMM}\b`),
  /\bleave me alone\b/,
  /\bwrong number\b/,
  /\b(?:remove|delete|take) (?:me|my number) (?:off|from)\b/,
]
const OLD_CRISIS_WORDS: readonly RegExp[] = [
  /\bsuicid(?:e|al)\b(?! (?:sprints?|runs?|drills?|shuttles?|lines?)\b)/,
  /\b(?:kill|killing|harm|harming) (?:myself|my self)\b/,
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
const oldWordsOf = (body: string) =>
  body
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
const oracle = {
  keywordOf(body: string) {
    const word = body
      .normalize('NFKC')
      .replace(/\s+/g, '')
      .replace(/[.!?,;:]+$/, '')
      .toUpperCase()
    if (['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'].includes(word)) return 'stop'
    if (['START', 'UNSTOP', 'YES'].includes(word)) return 'start'
    if (['HELP', 'INFO'].includes(word)) return 'help'
    return null
  },
  optOutOf(body: string) {
    const text = oldWordsOf(body)
    if (!text) return null
    if (OLD_OPT_OUT_REQUEST.test(text) || OLD_END_REQUEST.test(text)) return 'stop'
    if (OLD_OPT_OUT_WORDS.some((words) => words.test(text))) return 'unclear'
    return null
  },
  isCrisisMessage(body: string) {
    const text = oldWordsOf(body)
    return text !== '' && OLD_CRISIS_WORDS.some((words) => words.test(text))
  },
}

// ---------------------------------------------------------------------------------------------
// The bound: every reading costs at most STEPS_PER_CHARACTER steps per character it reads (after
// NFKC, which may lengthen a text: "⒤" reads as "(i)"), plus START_STEPS to begin. The automata
// have 115, 31 and 45 states, and a reading does at most a few steps per state per word, so some
// such bound holds for any text (docs/decisions/062); this one is the measured worst (16 per
// character, "i i i ... i") with some room: a table that grew a lot, or a matcher that
// backtracked, breaks it.
// ---------------------------------------------------------------------------------------------
const STEPS_PER_CHARACTER = 20
const START_STEPS = 100

const readLength = (body: string) => body.normalize('NFKC').toLowerCase().length

/** Reads an inbound text as the webhook does (keyword, opt-out, crisis) and bounds the steps of each reading. */
function expectLinear(body: string) {
  const [keyword, optOut, crisis]: Steps[] = [{ steps: 0 }, { steps: 0 }, { steps: 0 }]
  const answers = { keyword: keywordOf(body, keyword), optOut: optOutOf(body, optOut), crisis: isCrisisMessage(body, crisis) }
  const steps = [keyword!.steps, optOut!.steps, crisis!.steps]
  const bound = STEPS_PER_CHARACTER * readLength(body) + START_STEPS
  for (const s of steps) expect(s).toBeLessThanOrEqual(bound)
  return { answers, steps }
}

describe('crafted 1,600-character texts, each built to defeat one phrase family, cost steps in proportion to their length', () => {
  it.each(CRAFTED_TEXTS)('$family', ({ body, keyword, optOut, crisis }) => {
    expect(body.length).toBeGreaterThan(TWILIO_MAX - 40)
    expect(body.length).toBeLessThanOrEqual(TWILIO_MAX)
    const { answers, steps } = expectLinear(body)
    // The counter counts: the three readings read every character at least once between them
    // (the text is normalised and split once, then kept for the next reading).
    expect(steps.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(body.length)
    expect(answers).toEqual({ keyword, optOut, crisis })
  })
})

// ---------------------------------------------------------------------------------------------
// Random texts.
// ---------------------------------------------------------------------------------------------
const NOISE = ['x', 'gym', 'stopp', 'run', '9am', 'k', 'lol', 'the', 'ok', 'yes', 'STOP', 'Stop', 'END', 'opt', 'my', 'self', 'harm', 'ü', 'é', '💪', '\u24a4']
const SEPARATORS = [' ', ' ', ' ', ' ', '  ', ', ', '. ', '!', '?', "'", '\u2019', "' ", " '", '-', '\n', '\t', '', '…', '"', ':', '\u00a0']
const word = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PHRASE_VOCABULARY) }, { weight: 1, arbitrary: fc.constantFrom(...NOISE) })
const separator = fc.constantFrom(...SEPARATORS)
/** Words and separators, alternating, the words sometimes in capitals. */
const wordsText = (maxWords: number) =>
  fc
    .tuple(fc.constantFrom('', '', '', ' ', "'", '!', '"'), fc.array(fc.tuple(word, separator, fc.boolean()), { maxLength: maxWords }))
    .map(([lead, parts]) => lead + parts.map(([w, s, upper]) => (upper ? w.toUpperCase() : w) + s).join(''))

describe('random texts of up to 1,600 characters cost steps in proportion to their length', () => {
  it('words of the phrase tables, noise and punctuation', () => {
    fc.assert(
      fc.property(
        wordsText(800).map((body) => body.slice(0, TWILIO_MAX)),
        (body) => {
          expectLinear(body)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('any characters at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: TWILIO_MAX }), (body) => {
        expectLinear(body)
      }),
      { numRuns: 200 },
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Same answers as the old regular expressions, on short texts where those are fast.
// ---------------------------------------------------------------------------------------------
/**
 * Whole requests, built the way the old patterns read them (every alternative of each part), with
 * the tails of "end" and of the other requests mixed up so that near misses ("end those texts")
 * come up as often as matches, and a separator now and then that is not a space.
 */
const pick = (...phrases: string[]) => fc.constantFrom(...phrases)
const maybe = (arbitrary: fc.Arbitrary<string>) => fc.oneof(fc.constant(''), arbitrary)
const sep = fc.oneof({ weight: 15, arbitrary: fc.constant(' ') }, { weight: 1, arbitrary: separator })
const spaced = (...parts: fc.Arbitrary<string>[]) => fc.tuple(...parts).map((words) => words.filter(Boolean).join(' '))
const COMM_WORDS = pick('text', 'texts', 'text message', 'text messages', 'txt', 'txts', 'message', 'messages', 'messaging', 'sms', 'call', 'calls', 'calling', 'coaching call', 'coaching calls', 'phone call', 'phone calls', 'notification', 'notifications', 'reminder', 'reminders', 'textz', 'coaching')
const SOFT_WORDS = pick('please', 'pls', 'plz', 'kindly', 'now', 'right now', 'immediately', 'asap', 'thanks', 'thank you', 'thx', 'ok', 'okay', 'already', 'just', 'for good', 'anymore', 'any more', 'again', 'ever', 'at all', 'seriously', 'right', 'thank')
const VERB_ME = pick('texting', 'messaging', 'calling', 'contacting', 'bothering', 'spamming', 'sending')
const OBJECT_WORDS = fc.oneof(
  pick('me', 'us', 'it', 'this', 'that', 'all', 'everything', 'them', 'these', 'those', 'my number', 'me out', 'my', 'out'),
  spaced(maybe(pick('the', 'your', 'these', 'those', 'all', 'all the', 'all your', 'any', 'any more', 'any of your', 'more', 'of your')), COMM_WORDS, maybe(spaced(pick('and', 'or', 'nor'), COMM_WORDS))),
  spaced(VERB_ME, pick('me', 'us')),
  spaced(pick('off', 'from', 'on', 'to'), pick('this', 'these', 'that', 'your', 'all', 'the', 'those'), maybe(pick('list', 'number', "don't", 'x', 'me'))),
)
const END_TAIL = spaced(maybe(pick('the', 'your', 'these', 'all', 'all the', 'those', 'any')), COMM_WORDS)
const OPENING_WORDS = pick('please', 'pls', 'plz', 'kindly', 'just', 'hey', 'hi', 'hello', 'ok', 'okay', 'sorry', 'no', 'can you', 'could you', 'would you', 'can u', 'will you', 'i want to', "i'd like to", 'id like to', 'i would like to', 'i wish to', 'i need to', 'i want you to', 'you can', 'i', "i'd", "i'm", 'im', 'i am', 'you', 'want to')
const NOT_WORDS = pick("don't", 'dont', 'do not')
const CONTACT_VERB = pick('text', 'txt', 'message', 'msg', 'call', 'contact', 'sms')
const REQUEST_WORDS = fc.oneof(
  pick('stop', 'stopall', 'stop all', 'quit', 'revoke', 'cancel', 'unsubscribe', 'unsub', 'opt out', 'optout', 'opt me out', 'opt'),
  pick('end', 'end', 'end it'),
  spaced(pick('stop', 'quit', 'cease', 'end'), VERB_ME),
  spaced(fc.oneof(NOT_WORDS, pick('never', 'no longer')), CONTACT_VERB, maybe(spaced(pick('or', 'and', 'nor'), fc.oneof(CONTACT_VERB, pick('send'))))),
  spaced(NOT_WORDS, pick('send', 'want', 'need')),
  spaced(pick('no longer', 'never'), pick('want', 'need', 'send')),
  pick('no more', 'remove', 'delete', 'take', 'leave me alone', 'wrong number', 'leave me', 'no'),
  spaced(pick('withdraw', 'revoke', 'cancel', 'take back', 'take'), maybe(pick('my', 'all', 'your')), pick('consent', 'permission')),
)
const wholeRequest = fc
  .tuple(
    fc.array(fc.tuple(OPENING_WORDS, sep), { maxLength: 3 }),
    fc.tuple(REQUEST_WORDS, sep),
    fc.array(fc.tuple(fc.oneof(SOFT_WORDS, OBJECT_WORDS, END_TAIL), sep), { maxLength: 4 }),
    pick('', '', '', '!', '.', "'", ' x', '?'),
  )
  .map(([opening, request, tail, end]) =>
    [...opening, request, ...tail]
      .map(([w, s]) => w + s)
      .join('')
      .trimEnd() + end,
  )
/** The crisis phrases as the old patterns read them, with near misses, and what may follow them (the look aheads' words among it). */
const CRISIS_PHRASE = fc.oneof(
  spaced(pick('suicide', 'suicidal', 'suicid'), maybe(pick('sprint', 'sprints', 'run', 'runs', 'drill', 'drills', 'shuttle', 'shuttles', 'line', 'lines', 'laps'))),
  { weight: 3, arbitrary: spaced(pick('kill', 'killing', 'harm', 'harming', 'hurt', 'hurting', 'cut', 'cutting', 'kills'), pick('myself', 'my self', 'my', 'yourself')) },
  pick('self harm', 'selfharm', 'self harming', 'selfharming', 'self harms', 'self'),
  spaced(pick('end'), pick('it all', 'my life', 'my own life', 'it', 'my own')),
  spaced(pick('take my'), maybe(pick('own')), pick('life', 'time')),
  spaced(pick('want', 'wanna', 'going', 'gonna', 'ready', 'planning', 'plan', 'dying'), pick('to'), pick('die', 'live')),
  spaced(NOT_WORDS, pick('want to'), pick('live', 'be alive', 'exist', 'be here anymore', 'wake up', 'be here', 'be')),
  spaced(pick('no reason to'), pick('live', 'go on', 'go')),
  pick('better off dead', 'better off', 'off dead'),
)
/** What may follow a crisis phrase: other words, and the words that rule some out. */
const afterCrisis = fc.oneof(
  word,
  OBJECT_WORDS,
  { weight: 3, arbitrary: pick('at', 'during', 'while', 'in', 'on', 'playing', 'running', 'lifting', 'training', 'working', 'some', 'a', 'any', 'slack', 'break', 'some slack', 'a break', 'any slack', 'sprints', 'lines', 'it all', 'working out') },
)
const crisisText = fc
  .tuple(fc.array(fc.tuple(word, sep), { maxLength: 3 }), fc.tuple(CRISIS_PHRASE, sep), fc.array(fc.tuple(afterCrisis, sep), { maxLength: 3 }))
  .map(([before, crisis, after]) => [...before, crisis, ...after].map(([w, s]) => w + s).join(''))
const shortText = fc.oneof(wholeRequest, crisisText, wordsText(10))

describe('the same answers as the old regular expressions (the oracle) on short texts', () => {
  it('optOutOf and isCrisisMessage', () => {
    fc.assert(
      fc.property(shortText, (body) => {
        expect(optOutOf(body)).toBe(oracle.optOutOf(body))
        expect(isCrisisMessage(body)).toBe(oracle.isCrisisMessage(body))
      }),
      { numRuns: 20_000 },
    )
  })

  it('keywordOf', () => {
    const keywordish = fc
      .array(fc.oneof(fc.constantFrom('S', 'T', 'O', 'P', 's', 'top', 'STOP', 'UN', 'subscribe', 'START', 'yes', 'HELP', 'info', 'opt', 'out', 'END', 'x', 'ß', 'ﬀ', 'Ｓ'), fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '\u200b', '\u3000', '.', '!', '?', ',', ';', ':', '…', '-', "'")), { maxLength: 8 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(keywordish, (body) => {
        expect(keywordOf(body)).toBe(oracle.keywordOf(body))
      }),
      { numRuns: 20_000 },
    )
  })

  it('keywordOf takes for white space exactly what /\\s/ does, and strips exactly the punctuation it did, for every UTF-16 code unit', () => {
    const differ: number[] = []
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c)
      for (const body of [`ST${ch}OP`, `STOP${ch}`]) if (keywordOf(body) !== oracle.keywordOf(body)) differ.push(c)
    }
    expect(differ).toEqual([])
  })

  it('the examples the product pins (test/unit/texts.test.ts) and the tricky edges of word boundaries', () => {
    for (const body of [
      "i'don't text",
      "don't text's",
      "'stop",
      "stop'",
      "stop '",
      "i' d like to stop",
      "i''d like to stop",
      "don''t text me",
      'self-harm',
      'Self Harming!',
      'suicide  sprints',
      "suicide 'sprints",
      'suicide sprintsx',
      'hurt myself, at the gym',
      'hurt myself at',
      "cut myself some slack's",
      'cut myself some',
      'no more x texts',
      'no more x y texts',
      "no more don't texts",
      'stop off this x',
      "stop off this don't",
      'opt  out',
      'opt-out',
      'stop_texting',
      '  please   stop  ',
      'STOP ALL',
      'stopall texts',
      'end it all',
      'end texts',
      'end my texts',
      '\u2018stop\u2019',
    ]) {
      expect([body, optOutOf(body), isCrisisMessage(body)]).toEqual([body, oracle.optOutOf(body), oracle.isCrisisMessage(body)])
    }
  })
})

describe('the matcher', () => {
  it('reads words the way the old patterns did: lower case, a-z and 0-9, apostrophes kept apart', () => {
    const numbers = (...words: string[]) => words.map(wordNumber)
    expect(wordsIn('  Don’t   STOP-me!! ')).toEqual({ words: numbers('don', 't', 'stop', 'me'), gaps: [0, 2, 1, 1], trailing: false })
    expect(wordsIn("'hi' 'zzz9")).toEqual({ words: numbers('hi', 'zzz9'), gaps: [3, 3], trailing: false })
    expect(wordsIn("hi'")).toEqual({ words: numbers('hi'), gaps: [0], trailing: true })
    expect(wordsIn('')).toEqual({ words: [], gaps: [], trailing: false })
    // A word no pattern has is read as one number (0), and a word that only begins like one of theirs too.
    expect(numbers('zzz9', 'sto', 'stopx')).toEqual([0, 0, 0])
    expect(wordNumber('stop')).toBeGreaterThan(0)
  })

  it('splits every UTF-16 code unit as the old wordsOf did (NFKC, lower case, a-z 0-9 and apostrophes)', () => {
    // The old reading's words and what separates them, taken apart from its string.
    const oldWords = (body: string) => {
      const text = oldWordsOf(body)
      const words = text.match(/[a-z0-9]+/g) ?? []
      const separators = text.split(/[a-z0-9]+/)
      const gap = (separator: string, first: boolean) => (first ? (separator === '' ? 0 : 3) : separator === ' ' ? 1 : separator === "'" ? 2 : 3)
      return { words: words.map(wordNumber), gaps: words.map((_, i) => gap(separators[i]!, i === 0)), trailing: words.length > 0 && separators.at(-1) !== '' }
    }
    const differ: string[] = []
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c)
      for (const body of [`stop${ch}`, `${ch}me`, `i${ch}d`, `a${ch}${ch}b`, ch]) {
        if (JSON.stringify(wordsIn(body)) !== JSON.stringify(oldWords(body))) differ.push(`U+${c.toString(16).padStart(4, '0')} in ${JSON.stringify(body)}`)
      }
    }
    expect(differ).toEqual([])
  })

  it('refuses a phrase that is not lower-case words, and a look ahead without bound', () => {
    expect(() => anywhere(oneOf('Stop'))).toThrow(/lower-case/)
    expect(() => anywhere(oneOf('stop  now'))).toThrow(/lower-case/)
    expect(() => anywhere(notFollowedBy('stop', repeat('now')))).toThrow(/bounded/)
    expect(() => anywhere(repeat('stop'))).toThrow(/must read a word/)
  })

  it('answers the same when it may remember only a few sets of states (it forgets them and starts again)', () => {
    const pattern = seq(repeat(oneOf('please', 'i', 'can you')), oneOf('stop', 'no more'), repeat(oneOf('now', 'texts', 'me', 'all texts')))
    const tiny = wholeMessage(pattern, { maxSets: 2 })
    const roomy = wholeMessage(pattern)
    const hurt = notFollowedBy(seq('hurt', 'myself'), oneOf('at', 'in'))
    const tinyAnywhere = anywhere(hurt, { maxSets: 2 })
    const roomyAnywhere = anywhere(hurt)
    fc.assert(
      fc.property(fc.array(fc.constantFrom('please', 'i', 'can', 'you', 'stop', 'no', 'more', 'now', 'texts', 'me', 'all', 'hurt', 'myself', 'at', 'x'), { maxLength: 12 }), (words) => {
        const text = wordsIn(words.join(' '))
        expect(tiny.test(text)).toBe(roomy.test(text))
        expect(tinyAnywhere.test(text)).toBe(roomyAnywhere.test(text))
      }),
      { numRuns: 2000 },
    )
  })

  it('finds a phrase anywhere, and a look ahead rules out only what follows right after a space', () => {
    const hurt = anywhere(notFollowedBy(seq('hurt', 'myself'), oneOf('at', 'in')))
    expect(hurt.test(wordsIn('I hurt myself'))).toBe(true)
    expect(hurt.test(wordsIn('I hurt myself at the gym'))).toBe(false)
    expect(hurt.test(wordsIn('I hurt myself at the gym, then hurt myself again'))).toBe(true)
    expect(hurt.test(wordsIn("I hurt myself 'at"))).toBe(true)
  })
})
