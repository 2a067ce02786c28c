/**
 * Phrase patterns over the words of a text, matched in time linear in the text (docs/decisions/062).
 *
 * A pattern is built from phrases ("do not", "don't", "text messages") with `oneOf`, `seq`,
 * `optional`, `repeat`, `ANY_WORD` and `notFollowedBy`, and compiled once into a small automaton
 * whose moves read one word each (a Thompson NFA). A text is read once, word by word, keeping the
 * SET of automaton states it may be in, never one path at a time, so nothing backtracks. Each set
 * met is remembered with the set each word leads to (a DFA built as it is needed, as RE2 does):
 * a word costs one look-up, or, the first time a set meets that word, one pass over the
 * automaton. Either way the work per word is bounded by the automaton's size, however the text is
 * crafted. `Steps` counts that work so tests can bound it without a clock.
 *
 * The words of a text are read the way the old regular expressions read `wordsOf(body)`: NFKC,
 * lower case, curly apostrophes straight; a word is a run of a-z and 0-9, and what separates two
 * words is kept as one of: a single space ("text messages"), a single apostrophe ("don't" is the
 * words don and t), or anything else (" ' ", "''": never part of a phrase).
 */

/** Counts the work of reading a text: one step per character read, per state visited, per look-up. */
export type Steps = { steps: number }

type Pattern =
  | { readonly kind: 'phrase'; readonly text: string }
  | { readonly kind: 'any-word' }
  | { readonly kind: 'seq'; readonly parts: readonly Pattern[] }
  | { readonly kind: 'one-of'; readonly options: readonly Pattern[] }
  | { readonly kind: 'optional'; readonly pattern: Pattern }
  | { readonly kind: 'repeat'; readonly pattern: Pattern }
  | { readonly kind: 'not-followed-by'; readonly pattern: Pattern; readonly next: Pattern }

/** A string stands for the phrase it spells: words separated by single spaces ("do not", "don't"). */
type Part = Pattern | string

const part = (p: Part): Pattern => (typeof p === 'string' ? { kind: 'phrase', text: p } : p)

/** Any one of these phrases or patterns. */
export const oneOf = (...options: Part[]): Pattern => ({ kind: 'one-of', options: options.map(part) })
/** These, one after the other, a space between each. */
export const seq = (...parts: Part[]): Pattern => ({ kind: 'seq', parts: parts.map(part) })
/** This or nothing. */
export const optional = (p: Part): Pattern => ({ kind: 'optional', pattern: part(p) })
/** This any number of times, none included. */
export const repeat = (p: Part): Pattern => ({ kind: 'repeat', pattern: part(p) })
/** Any one word. */
export const ANY_WORD: Pattern = { kind: 'any-word' }
/**
 * `pattern`, where the words after it (after a space) are not `next` ("hurt myself", but not "hurt
 * myself at the gym"). `next` is bounded (no `repeat`), so the look costs at most a constant.
 */
export const notFollowedBy = (p: Part, next: Part): Pattern => ({ kind: 'not-followed-by', pattern: part(p), next: part(next) })

// ---------------------------------------------------------------------------------------------
// Words. Every word of every pattern gets a number (from 1; 0 is any other word), and a text's
// words are numbered as they are read, by walking a tree of the patterns' words letter by letter:
// nothing is cut out of the text.
// ---------------------------------------------------------------------------------------------

/** What separates a word from the one before it. */
const NOTHING = 0 // the first word, with nothing before it
const SPACE = 1
const APOSTROPHE = 2
const OTHER = 3 // anything else: "' ", "''", an apostrophe before the first word
type Gap = typeof NOTHING | typeof SPACE | typeof APOSTROPHE | typeof OTHER

/** A word that is in no pattern. */
const UNKNOWN = 0
const LETTERS = 36 // a-z, 0-9
const letterOf = (c: number) => (c >= 0x61 ? c - 0x61 : c - 0x30 + 26)
const isWordChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) // a-z, 0-9

/**
 * What each UTF-16 code unit of a normalised text is to the word splitter, in lower case: a letter
 * (a-z, 0-9: its number, 0 to 35), an apostrophe (' and the curly ones), "İ" (which lower case
 * makes "i" and a combining dot: a letter that ends its word), or anything else (a space). After
 * NFKC, the only characters other than A-Z that String.prototype.toLowerCase turns into a-z, 0-9
 * or an apostrophe are the curly apostrophes and "İ" (test/unit/texts-matcher.test.ts checks every
 * code unit).
 */
const SEPARATOR = 0xff
const APOSTROPHE_CHAR = 0xfe
const DOTTED_I = 0xfd
const CLASS_OF = new Uint8Array(0x10000).fill(SEPARATOR)
for (let c = 0x61; c <= 0x7a; c++) CLASS_OF[c] = CLASS_OF[c - 0x20] = letterOf(c) // a-z and A-Z
for (let c = 0x30; c <= 0x39; c++) CLASS_OF[c] = letterOf(c)
for (const c of [0x27, 0x2018, 0x2019]) CLASS_OF[c] = APOSTROPHE_CHAR
CLASS_OF[0x130] = DOTTED_I

/** The tree of the patterns' words: node n's child for letter l is tree[n * LETTERS + l] (0: none); node 1 is the root. */
let tree = new Int32Array(LETTERS * 2)
let nodes = 2
/** The number of the word that ends at node n, or UNKNOWN. */
let wordAt = new Int32Array(2)
const numbers = new Map<string, number>()

/** The number of a pattern's word (given one the first time it is seen). */
function numberOf(word: string): number {
  let id = numbers.get(word)
  if (id !== undefined) return id
  id = numbers.size + 1
  numbers.set(word, id)
  let node = 1
  for (let i = 0; i < word.length; i++) {
    const slot = node * LETTERS + letterOf(word.charCodeAt(i))
    if (tree[slot] === 0) {
      if (nodes * LETTERS >= tree.length) {
        const bigger = new Int32Array(tree.length * 2)
        bigger.set(tree)
        tree = bigger
        const more = new Int32Array(wordAt.length * 2)
        more.set(wordAt)
        wordAt = more
      }
      tree[slot] = nodes++
    }
    node = tree[slot]!
  }
  wordAt[node] = id
  return id
}

/** The number of a word as a text's words are numbered: UNKNOWN when no pattern has it. */
export function wordNumber(word: string): number {
  return numbers.get(word) ?? UNKNOWN
}

/** The words of a text, numbered, and what separates them. */
type Words = {
  /** The words' numbers (wordNumber), UNKNOWN for a word no pattern has. */
  readonly words: readonly number[]
  /** gaps[i]: what comes before words[i]. */
  readonly gaps: readonly Gap[]
  /** Whether anything (an apostrophe) comes after the last word. */
  readonly trailing: boolean
}

// The webhook reads one text three times in a row (keyword, opt-out, crisis words): the last
// text's NFKC form and words are kept, so that it is normalised and split once.
let lastBody: string | null = null
let lastNormal = ''
let lastWords: { body: string; vocabulary: number; words: Words } | null = null

/** `body` in NFKC (the form every reading starts from). */
export function normalized(body: string, counter?: Steps): string {
  if (body !== lastBody) {
    lastNormal = body.normalize('NFKC')
    lastBody = body
    if (counter) counter.steps += body.length
  }
  return lastNormal
}

/** The next reading starts from scratch (the bench reads each message as if it were new). */
export function forgetLastText(): void {
  lastBody = null
  lastWords = null
}

/**
 * The words of a message, in one pass over its characters (lower case done on the way, CLASS_OF).
 * Everything that is not a-z, 0-9 or an apostrophe separates words as a space does, and runs of
 * them count as one.
 */
export function wordsIn(body: string, counter?: Steps): Words {
  if (lastWords && lastWords.body === body && lastWords.vocabulary === numbers.size) return lastWords.words
  const text = normalized(body, counter)
  const length = text.length
  const letters = tree
  const wordEndingAt = wordAt
  const words: number[] = []
  const gaps: Gap[] = []
  let apostrophes = 0 // since the last word
  let spaced = false // whether something else came since the last word
  let i = 0
  while (i < length) {
    let kind = CLASS_OF[text.charCodeAt(i)]!
    if (kind >= LETTERS && kind !== DOTTED_I) {
      // Between words.
      if (kind === APOSTROPHE_CHAR) apostrophes++
      else spaced = true
      i++
      continue
    }
    // A word: what came before it, then its letters, walking the tree of the patterns' words.
    if (words.length === 0) gaps.push(apostrophes === 0 ? NOTHING : OTHER)
    else gaps.push(apostrophes === 0 ? SPACE : apostrophes === 1 && !spaced ? APOSTROPHE : OTHER)
    apostrophes = 0
    spaced = false
    let node = 1
    for (;;) {
      const dotted = kind === DOTTED_I // "i", then a combining dot that ends the word
      if (node !== 0) node = letters[node * LETTERS + (dotted ? letterOf(0x69) : kind)]!
      i++
      if (dotted) {
        spaced = true
        break
      }
      if (i === length) break
      kind = CLASS_OF[text.charCodeAt(i)]!
      if (kind >= LETTERS && kind !== DOTTED_I) break
    }
    words.push(node === 0 ? UNKNOWN : wordEndingAt[node]!)
  }
  if (counter) counter.steps += length
  const result = { words, gaps, trailing: words.length > 0 && apostrophes > 0 }
  lastWords = { body, vocabulary: numbers.size, words: result }
  return result
}

// ---------------------------------------------------------------------------------------------
// The automaton (NFA): states whose moves read a word (after a space, or right after an
// apostrophe) or nothing.
// ---------------------------------------------------------------------------------------------

type State = {
  /** word number -> next states, for a word after a space. */
  afterSpace: Map<number, number[]> | null
  /** word number -> next states, for a word right after an apostrophe (the "t" of "don't"). */
  afterApostrophe: Map<number, number[]> | null
  /** next states for any word after a space. */
  anyWord: number[] | null
  /** next states reached without reading. */
  free: number[]
  /** A look ahead: the state is passed only if the words from here are not this. */
  unless: Nfa | null
  accept: boolean
}

type Nfa = {
  states: State[]
  /** The states the start reaches without reading (those that read the first word). */
  first: number[]
}

const reads = (state: State) => state.afterSpace !== null || state.afterApostrophe !== null || state.anyWord !== null

function newState(states: State[]): number {
  states.push({ afterSpace: null, afterApostrophe: null, anyWord: null, free: [], unless: null, accept: false })
  return states.length - 1
}

/** The words of a phrase as the matcher reads them: "don't stop" is don, 't, stop. */
function phraseWords(text: string): { word: number; gap: Gap }[] {
  const out: { word: number; gap: Gap }[] = []
  for (const spaced of text.split(' ')) {
    spaced.split("'").forEach((word, i) => {
      if (word === '' || ![...word].every((c) => isWordChar(c.charCodeAt(0)))) throw new Error(`phrase ${JSON.stringify(text)}: only lower-case letters, digits, single spaces and apostrophes`)
      out.push({ word: numberOf(word), gap: i === 0 ? SPACE : APOSTROPHE })
    })
  }
  return out
}

function addMove(map: Map<number, number[]>, word: number, to: number) {
  const targets = map.get(word)
  if (!targets) map.set(word, [to])
  else if (!targets.includes(to)) targets.push(to)
}

/**
 * Compiles `pattern` so that a match of it continues at state `next`; returns its first state. The
 * phrases of a `oneOf` share one tree of states (a trie), so a word is looked up once per state
 * however many phrases start with it.
 */
function compile(states: State[], pattern: Pattern, next: number): number {
  switch (pattern.kind) {
    case 'phrase':
      return compile(states, { kind: 'one-of', options: [pattern] }, next)
    case 'any-word': {
      const s = newState(states)
      states[s]!.anyWord = [next]
      return s
    }
    case 'seq': {
      let first = next
      for (let i = pattern.parts.length - 1; i >= 0; i--) first = compile(states, pattern.parts[i]!, first)
      return first
    }
    case 'one-of': {
      const root = newState(states)
      const children = new Map<number, Map<string, number>>()
      for (const option of flatten(pattern.options)) {
        if (option.kind !== 'phrase') {
          states[root]!.free.push(compile(states, option, next))
          continue
        }
        const words = phraseWords(option.text)
        let at = root
        words.forEach(({ word, gap }, i) => {
          const state = states[at]!
          const map = gap === SPACE ? (state.afterSpace ??= new Map()) : (state.afterApostrophe ??= new Map())
          if (i === words.length - 1) return addMove(map, word, next)
          const key = `${gap}:${word}`
          let kids = children.get(at)
          if (!kids) children.set(at, (kids = new Map()))
          let child = kids.get(key)
          if (child === undefined) {
            child = newState(states)
            kids.set(key, child)
            addMove(map, word, child)
          }
          at = child
        })
      }
      return root
    }
    case 'optional': {
      const s = newState(states)
      states[s]!.free.push(compile(states, pattern.pattern, next), next)
      return s
    }
    case 'repeat': {
      const s = newState(states)
      states[s]!.free.push(compile(states, pattern.pattern, s), next)
      return s
    }
    case 'not-followed-by': {
      if (unbounded(pattern.next)) throw new Error('notFollowedBy: what follows must be bounded (no repeat)')
      const guard = newState(states)
      states[guard]!.unless = build(pattern.next)
      states[guard]!.free.push(next)
      return compile(states, pattern.pattern, guard)
    }
  }
}

/** The options of a `oneOf`, with the options of a `oneOf` among them in its place (their phrases share the tree). */
function flatten(options: readonly Pattern[]): Pattern[] {
  return options.flatMap((option) => (option.kind === 'one-of' ? flatten(option.options) : [option]))
}

function unbounded(pattern: Pattern): boolean {
  switch (pattern.kind) {
    case 'repeat':
      return true
    case 'phrase':
    case 'any-word':
      return false
    case 'seq':
      return pattern.parts.some(unbounded)
    case 'one-of':
      return pattern.options.some(unbounded)
    case 'optional':
      return unbounded(pattern.pattern)
    case 'not-followed-by':
      return unbounded(pattern.pattern) || unbounded(pattern.next)
  }
}

function build(pattern: Pattern): Nfa {
  const states: State[] = []
  const accept = newState(states)
  states[accept]!.accept = true
  const start = compile(states, pattern, accept)
  // The states the start reaches without reading; a pattern must read a word before it can match or look ahead.
  const first: number[] = []
  const seen = new Set<number>()
  const stack = [start]
  while (stack.length > 0) {
    const s = stack.pop()!
    if (seen.has(s)) continue
    seen.add(s)
    const state = states[s]!
    if (state.accept || state.unless) throw new Error('a pattern must read a word before it matches or looks ahead')
    if (reads(state)) first.push(s)
    stack.push(...state.free)
  }
  return { states, first: first.sort((a, b) => a - b) }
}

/** The next states of `state` for `word` after `gap`. */
function movesOf(state: State, gap: Gap, word: number): readonly number[] | null {
  if (gap === APOSTROPHE) return state.afterApostrophe?.get(word) ?? null
  if (gap !== SPACE) return null
  const moves = state.afterSpace?.get(word)
  if (moves && state.anyWord) return [...moves, ...state.anyWord]
  return moves ?? state.anyWord
}

/**
 * Whether the words from `position` on (the first after a space) begin with a match of `nfa`, a
 * look-ahead: read as a set of states, word by word, for as many words as it can take (a few).
 */
function startsWith(nfa: Nfa, text: Words, position: number, counter: Steps): boolean {
  let current: readonly number[] = nfa.first
  for (let i = position; i < text.words.length && current.length > 0; i++) {
    const stack: number[] = []
    for (const s of current) {
      counter.steps++
      const moves = movesOf(nfa.states[s]!, text.gaps[i]!, text.words[i]!)
      if (moves) stack.push(...moves)
    }
    const seen = new Set<number>()
    const next: number[] = []
    while (stack.length > 0) {
      const s = stack.pop()!
      if (seen.has(s)) continue
      seen.add(s)
      counter.steps++
      const state = nfa.states[s]!
      if (state.unless && startsWith(state.unless, text, i + 1, counter)) continue
      if (state.accept) return true
      if (reads(state)) next.push(s)
      stack.push(...state.free)
    }
    current = next
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// The sets of states (the DFA), built as texts meet them.
// ---------------------------------------------------------------------------------------------

type StateSet = {
  /** The states in the set that read a word, in order. */
  readonly reading: readonly number[]
  /** Look-ahead states reached here and not yet passed: whether they pass depends on the words that follow. */
  readonly guards: readonly number[]
  /** Whether a match ends here. */
  readonly accept: boolean
  /** The set each word leads to, as met: next[gap][word number]. */
  readonly next: (StateSet | undefined)[][]
  /** The set once a guard passed. */
  readonly passed: Map<number, StateSet>
}

/** The most sets one automaton remembers; past it, it forgets them all and starts again (memory stays bounded). */
const MAX_SETS = 2000

class Automaton {
  readonly nfa: Nfa
  /** Whether a match may begin at any word (anywhere), or only at the first (wholeMessage). */
  private readonly unanchored: boolean
  private readonly maxSets: number
  private sets = new Map<string, StateSet>()
  private seen: Int32Array
  private stamp = 0
  start: StateSet

  constructor(nfa: Nfa, unanchored: boolean, maxSets: number) {
    this.nfa = nfa
    this.unanchored = unanchored
    this.maxSets = maxSets
    this.seen = new Int32Array(nfa.states.length)
    this.start = this.initial()
  }

  private initial(): StateSet {
    return this.remember(this.unanchored ? [] : [...this.nfa.first], [], false)
  }

  private remember(reading: number[], guards: number[], accept: boolean): StateSet {
    reading.sort((a, b) => a - b)
    guards.sort((a, b) => a - b)
    const key = `${reading.join(',')}|${guards.join(',')}|${accept ? 1 : 0}`
    let set = this.sets.get(key)
    if (set) return set
    if (this.sets.size >= this.maxSets) {
      this.sets = new Map()
      this.start = this.initial()
    }
    set = { reading, guards, accept, next: [[], [], [], []], passed: new Map() }
    this.sets.set(key, set)
    return set
  }

  /** Adds `from` and what it reaches without reading to the set being built. */
  private close(from: readonly number[], reading: number[], guards: number[], counter: Steps): boolean {
    const { states } = this.nfa
    const stack = [...from]
    let accept = false
    while (stack.length > 0) {
      const s = stack.pop()!
      if (this.seen[s] === this.stamp) continue
      this.seen[s] = this.stamp
      counter.steps++
      const state = states[s]!
      if (state.unless) {
        guards.push(s)
        continue
      }
      if (state.accept) accept = true
      if (reads(state)) reading.push(s)
      for (const f of state.free) stack.push(f)
    }
    return accept
  }

  /** The set after reading `word` (after `gap`) from `set`. */
  move(set: StateSet, gap: Gap, word: number, counter: Steps): StateSet {
    counter.steps++
    const known = set.next[gap]![word]
    if (known) return known
    this.stamp++
    const reading: number[] = []
    const guards: number[] = []
    let accept = false
    const { states } = this.nfa
    for (const s of set.reading) {
      counter.steps++
      const moves = movesOf(states[s]!, gap, word)
      if (moves) accept = this.close(moves, reading, guards, counter) || accept
    }
    // Where a match may begin at any word, it begins here too, whatever came before the word.
    if (this.unanchored) {
      for (const s of this.nfa.first) {
        counter.steps++
        const moves = movesOf(states[s]!, SPACE, word)
        if (moves) accept = this.close(moves, reading, guards, counter) || accept
      }
    }
    const next = this.remember(reading, guards, accept)
    set.next[gap]![word] = next
    return next
  }

  /** The set with the guards whose look-ahead fails at `position` passed (the words from there are not what they rule out). */
  settle(set: StateSet, text: Words, position: number, counter: Steps): StateSet {
    const checked: number[] = []
    for (;;) {
      const guard = set.guards.find((g) => !checked.includes(g))
      if (guard === undefined) return set
      checked.push(guard)
      if (!startsWith(this.nfa.states[guard]!.unless!, text, position, counter)) set = this.pass(set, guard, counter)
    }
  }

  private pass(set: StateSet, guard: number, counter: Steps): StateSet {
    const known = set.passed.get(guard)
    if (known) return known
    this.stamp++
    const reading = [...set.reading]
    const guards = set.guards.filter((g) => g !== guard)
    for (const s of reading) this.seen[s] = this.stamp
    for (const g of set.guards) this.seen[g] = this.stamp
    const accept = this.close(this.nfa.states[guard]!.free, reading, guards, counter) || set.accept
    const next = this.remember(reading, guards, accept)
    set.passed.set(guard, next)
    return next
  }
}

type Matcher = {
  /** Whether the text matches. */
  test(text: Words, counter?: Steps): boolean
  /** The automaton's size (its states): what bounds the work per word. */
  readonly states: number
  /** Every word of the pattern's phrases ("don't" gives don and t). */
  readonly vocabulary: readonly string[]
}

function vocabularyOf(nfa: Nfa, into = new Set<string>()): Set<string> {
  const words = [...numbers.keys()]
  for (const state of nfa.states) {
    for (const word of state.afterSpace?.keys() ?? []) into.add(words[word - 1]!)
    for (const word of state.afterApostrophe?.keys() ?? []) into.add(words[word - 1]!)
    if (state.unless) vocabularyOf(state.unless, into)
  }
  return into
}

/** How many sets of states a matcher remembers at most (tests make it small, to see it start again). */
type Options = { maxSets?: number }

/** Matches a message that is the pattern and nothing else (an apostrophe before or after is something). */
export function wholeMessage(pattern: Pattern, options: Options = {}): Matcher {
  const automaton = new Automaton(build(pattern), false, options.maxSets ?? MAX_SETS)
  return {
    states: automaton.nfa.states.length,
    vocabulary: [...vocabularyOf(automaton.nfa)],
    test(text, counter = { steps: 0 }) {
      const { words, gaps } = text
      if (words.length === 0 || gaps[0] !== NOTHING) return false
      let set = automaton.start
      for (let i = 0; i < words.length; i++) {
        set = automaton.move(set, i === 0 ? SPACE : gaps[i]!, words[i]!, counter)
        if (set.guards.length > 0) set = automaton.settle(set, text, i + 1, counter)
        if (set.reading.length === 0 && i < words.length - 1) return false
      }
      return set.accept && !text.trailing
    },
  }
}

/** Matches a message with the pattern anywhere in it, as whole words. */
export function anywhere(pattern: Pattern, options: Options = {}): Matcher {
  const automaton = new Automaton(build(pattern), true, options.maxSets ?? MAX_SETS)
  return {
    states: automaton.nfa.states.length,
    vocabulary: [...vocabularyOf(automaton.nfa)],
    test(text, counter = { steps: 0 }) {
      const { words, gaps } = text
      let set = automaton.start
      for (let i = 0; i < words.length; i++) {
        set = automaton.move(set, gaps[i]!, words[i]!, counter)
        if (set.guards.length > 0) set = automaton.settle(set, text, i + 1, counter)
        if (set.accept) return true
      }
      return false
    },
  }
}
