/**
 * Phrase patterns over the words of a text, matched in time linear in the text (docs/decisions/062).
 *
 * A pattern is built from phrases ("do not", "don't", "text messages") with `oneOf`, `seq`,
 * `optional`, `repeat`, `ANY_WORD` and `notFollowedBy`, and compiled once into a small automaton
 * whose transitions read one word each (a Thompson NFA). A text is read once, word by word, keeping
 * the SET of automaton states it may be in (never one path at a time, so nothing backtracks): per
 * word, each state enters the set at most once and the word is looked up once from each state of
 * the set (and from the start's, where a match may begin), so the work is at most a constant times
 * the words, the constant being the automaton's size, however the text is crafted. `Steps` counts
 * that work so tests can bound it without a clock.
 *
 * The words of a text are read the way the old regular expressions read `wordsOf(body)`: NFKC, lower
 * case, curly apostrophes straight; a word is a run of a-z and 0-9, and what separates two words is
 * kept as one of: a single space ("text messages"), a single apostrophe ("don't" is the words don
 * and t), or anything else (" ' ", "''": never part of a phrase).
 */

/** Counts the work of reading a text: one step per character read, per state visited, per lookup. */
export type Steps = { steps: number }

export type Pattern =
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
 * myself at the gym"). `next` is a bounded phrase (no `repeat`), so the look costs a constant.
 */
export const notFollowedBy = (p: Part, next: Part): Pattern => ({ kind: 'not-followed-by', pattern: part(p), next: part(next) })

/** What separates a word from the one before it. */
const NOTHING = 0 // the first word, with nothing before it
const SPACE = 1
const APOSTROPHE = 2
const OTHER = 3 // anything else: "' ", "''", an apostrophe before the first word
type Gap = typeof NOTHING | typeof SPACE | typeof APOSTROPHE | typeof OTHER

/** The words of a text and what separates them. */
export type Words = {
  readonly words: readonly string[]
  /** gaps[i]: what comes before words[i]. */
  readonly gaps: readonly Gap[]
  /** Whether anything (an apostrophe) comes after the last word. */
  readonly trailing: boolean
}

const isWordChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) // a-z, 0-9
const isApostrophe = (c: number) => c === 0x27 || c === 0x2018 || c === 0x2019 // ' and the curly ones

/**
 * The words of a message, in one pass over its characters. Everything that is not a-z, 0-9 or an
 * apostrophe separates words as a space does, and runs of them count as one.
 */
export function wordsIn(body: string, counter?: Steps): Words {
  const text = body.normalize('NFKC').toLowerCase()
  const words: string[] = []
  const gaps: Gap[] = []
  let start = -1 // where the word being read began, or -1 between words
  let apostrophes = 0 // since the last word
  let spaced = false // whether something else came since the last word
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isWordChar(c)) {
      if (start < 0) {
        start = i
        if (words.length === 0) gaps.push(apostrophes === 0 ? NOTHING : OTHER)
        else gaps.push(apostrophes === 0 ? SPACE : apostrophes === 1 && !spaced ? APOSTROPHE : OTHER)
      }
      continue
    }
    if (start >= 0) {
      words.push(text.slice(start, i))
      start = -1
      apostrophes = 0
      spaced = false
    }
    if (isApostrophe(c)) apostrophes++
    else spaced = true
  }
  if (start >= 0) words.push(text.slice(start))
  if (counter) counter.steps += text.length
  return { words, gaps, trailing: start < 0 && apostrophes > 0 }
}

/** One state of the automaton. Moves read a word (after a space, or after an apostrophe) or nothing. */
type State = {
  /** word -> next states, for a word after a space. */
  afterSpace: Map<string, number[]> | null
  /** word -> next states, for a word right after an apostrophe (the "t" of "don't"). */
  afterApostrophe: Map<string, number[]> | null
  /** next states for any word after a space. */
  anyWord: number[] | null
  /** next states reached without reading. */
  free: number[]
  /** A look ahead: the state is passed only if the words from here are not this. */
  unless: Machine | null
  accept: boolean
}

type Machine = {
  states: State[]
  /** The states the start reaches without reading (those that read the first word). */
  first: number[]
}

function newState(states: State[]): number {
  states.push({ afterSpace: null, afterApostrophe: null, anyWord: null, free: [], unless: null, accept: false })
  return states.length - 1
}

/** The words of a phrase as the matcher reads them: "don't stop" is don, 't, stop. */
function phraseWords(text: string): { word: string; gap: Gap }[] {
  const out: { word: string; gap: Gap }[] = []
  for (const spaced of text.split(' ')) {
    spaced.split("'").forEach((word, i) => {
      if (word === '' || ![...word].every((c) => isWordChar(c.charCodeAt(0)))) throw new Error(`phrase ${JSON.stringify(text)}: only lower-case letters, digits, single spaces and apostrophes`)
      out.push({ word, gap: i === 0 ? SPACE : APOSTROPHE })
    })
  }
  return out
}

function addMove(map: Map<string, number[]>, word: string, to: number) {
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
          const key = `${gap}${word}`
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

function build(pattern: Pattern): Machine {
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
    if (state.afterSpace || state.afterApostrophe || state.anyWord) first.push(s)
    stack.push(...state.free)
  }
  return { states, first }
}

/** One reading: the set of states after each word, and what it cost. */
class Run {
  private readonly machine: Machine
  private readonly text: Words
  private readonly counter: Steps
  /** seen[s] === stamp: state s is in the set being built. */
  private readonly seen: Int32Array
  private stamp = 0

  constructor(machine: Machine, text: Words, counter: Steps) {
    this.machine = machine
    this.text = text
    this.counter = counter
    this.seen = new Int32Array(machine.states.length)
  }

  /** A new, empty set of states (the states already in a set are not added twice). */
  newSet(): number[] {
    this.stamp++
    return []
  }

  /**
   * Adds `from` and what it reaches without reading to `into`, the set of states after the first
   * `position` words. Returns whether a match ended there (the accepting state was reached).
   */
  close(from: number, position: number, into: number[]): boolean {
    const { states } = this.machine
    const stack = [from]
    let accepted = false
    while (stack.length > 0) {
      const s = stack.pop()!
      if (this.seen[s] === this.stamp) continue
      this.seen[s] = this.stamp
      this.counter.steps++
      const state = states[s]!
      if (state.unless && startsWith(state.unless, this.text, position, this.counter)) continue
      if (state.accept) accepted = true
      if (state.afterSpace || state.afterApostrophe || state.anyWord) into.push(s)
      for (const f of state.free) stack.push(f)
    }
    return accepted
  }

  /** Reads word `position` from each state of `from` (as if after `gap`) into `into`. */
  step(from: readonly number[], gap: Gap, position: number, into: number[]): boolean {
    const { states } = this.machine
    const word = this.text.words[position]!
    let accepted = false
    for (const s of from) {
      this.counter.steps++
      const state = states[s]!
      const map = gap === SPACE ? state.afterSpace : gap === APOSTROPHE ? state.afterApostrophe : null
      const targets = map?.get(word)
      if (targets) for (const t of targets) accepted = this.close(t, position + 1, into) || accepted
      if (gap === SPACE && state.anyWord) for (const t of state.anyWord) accepted = this.close(t, position + 1, into) || accepted
    }
    return accepted
  }
}

/** Whether the words from `position` on (the first after a space) begin with a match of the look-ahead machine. */
function startsWith(machine: Machine, text: Words, position: number, counter: Steps): boolean {
  const run = new Run(machine, text, counter)
  let current: readonly number[] = machine.first
  for (let i = position; i < text.words.length && current.length > 0; i++) {
    const next = run.newSet()
    if (run.step(current, text.gaps[i]!, i, next)) return true
    current = next
  }
  return false
}

export type Matcher = {
  /** Whether the text matches. */
  test(text: Words, counter?: Steps): boolean
  /** The automaton's size (its states): what bounds the work per word. */
  readonly states: number
  /** Every word of the pattern's phrases ("don't" gives don and t). */
  readonly vocabulary: readonly string[]
}

function vocabularyOf(machine: Machine, into = new Set<string>()): Set<string> {
  for (const state of machine.states) {
    for (const word of state.afterSpace?.keys() ?? []) into.add(word)
    for (const word of state.afterApostrophe?.keys() ?? []) into.add(word)
    if (state.unless) vocabularyOf(state.unless, into)
  }
  return into
}

/** Matches a message that is the pattern and nothing else (an apostrophe before or after is something). */
export function wholeMessage(pattern: Pattern): Matcher {
  const machine = build(pattern)
  return {
    states: machine.states.length,
    vocabulary: [...vocabularyOf(machine)],
    test(text, counter = { steps: 0 }) {
      const { words, gaps } = text
      if (words.length === 0 || gaps[0] !== NOTHING) return false
      const run = new Run(machine, text, counter)
      let current: readonly number[] = machine.first
      let accepted = false
      for (let i = 0; i < words.length; i++) {
        if (current.length === 0) return false
        const next = run.newSet()
        accepted = run.step(current, i === 0 ? SPACE : gaps[i]!, i, next)
        current = next
      }
      return accepted && !text.trailing
    },
  }
}

/** Matches a message with the pattern anywhere in it, as whole words. */
export function anywhere(pattern: Pattern): Matcher {
  const machine = build(pattern)
  return {
    states: machine.states.length,
    vocabulary: [...vocabularyOf(machine)],
    test(text, counter = { steps: 0 }) {
      const { words, gaps } = text
      const run = new Run(machine, text, counter)
      let current: readonly number[] = []
      for (let i = 0; i < words.length; i++) {
        const next = run.newSet()
        // The matches going on read this word after what really separates it from the last; a
        // match may also begin at this word, whatever comes before it.
        if (run.step(current, gaps[i]!, i, next)) return true
        if (run.step(machine.first, SPACE, i, next)) return true
        current = next
      }
      return false
    },
  }
}
