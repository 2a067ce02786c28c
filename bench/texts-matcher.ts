import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { forgetLastText } from '#common/text-matcher'
import { isCrisisMessage, keywordOf, optOutOf, PHRASE_VOCABULARY } from '#common/texts'
import { CRAFTED_TEXTS, randomText, seededRandom } from '../test/helpers/crafted-texts'

/**
 * The texts matcher (docs/decisions/062): what reading one inbound text costs (keywordOf, optOutOf
 * and isCrisisMessage, all three, as the SMS webhook may), for the crafted 1,600-character texts
 * built to defeat each phrase family and for a batch of random texts of up to 1,600 characters,
 * next to a plain `includes` scan of the same text: the text as the matcher reads it (NFKC, then
 * lower case), searched with String.prototype.includes for every word of the phrase tables (all of
 * them, no early stop), which is what a naive keyword filter does. The same scan without NFKC (the
 * text lower-cased as received) is printed beside it: on text that NFKC lengthens ("⒤" is "(i)")
 * it reads a third of what the matcher must. Figures: the slowest message of each set, per message.
 * Goal: the slowest at most 10x the scan of the same text, and under 1 ms.
 */
const RANDOM_TEXTS = Number(process.env.BENCH_TEXTS ?? 200)
const ROUNDS = 15
/** A round repeats a message for about this long (wall clock, measured once per message). */
const ROUND_NS = 1_000_000n
const GOAL_RATIO = 10
const GOAL_MS = 1

let sink = 0
const ok = (pass: boolean) => (pass ? 'OK' : 'BELOW GOAL')

const matcher = (body: string) => {
  // Each message as if it were new: the text kept from the last reading is dropped first.
  forgetLastText()
  const keyword = keywordOf(body)
  const optOut = optOutOf(body)
  const crisis = isCrisisMessage(body)
  return (keyword ? 1 : 0) + (optOut ? 2 : 0) + (crisis ? 4 : 0)
}

const scanOf = (lower: string) => {
  let found = 0
  for (const word of PHRASE_VOCABULARY) if (lower.includes(word)) found++
  return found
}
/** The naive filter on the text as the matcher reads it. */
const includesScan = (body: string) => scanOf(body.normalize('NFKC').toLowerCase())
/** The same without NFKC: the text lower-cased as received. */
const plainScan = (body: string) => scanOf(body.toLowerCase())

/** How many calls of `f(body)` take about ROUND_NS. */
function callsPerRound(f: (body: string) => number, body: string): number {
  for (let calls = 1; ; calls *= 2) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) sink += f(body)
    if (process.hrtime.bigint() - start >= ROUND_NS) return calls
  }
}

// The garbage collector, run before each round (not timed), so that no round is charged for
// collecting what the last one left: the scan of a text NFKC lengthens 18-fold leaves megabytes
// that the next round's matcher would otherwise pay for.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void

/** CPU microseconds per call of `f(body)` over one round of `calls` calls, on a heap the last round's garbage has left. */
function round(f: (body: string) => number, body: string, calls: number): number {
  gc({ type: 'major' })
  const before = process.cpuUsage()
  for (let i = 0; i < calls; i++) sink += f(body)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / calls
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

type Measured = { label: string; length: number; matcher: number; scan: number; plain: number; steps: number }

/**
 * The matcher and the scans on one message, in alternating rounds (so all see the same machine),
 * each figure the median of ROUNDS rounds of the process's CPU time: on these shared 2-core
 * machines the wall clock mostly measures waiting for a core.
 */
function measure(label: string, body: string): Measured {
  const counters = [{ steps: 0 }, { steps: 0 }, { steps: 0 }]
  forgetLastText()
  keywordOf(body, counters[0])
  optOutOf(body, counters[1])
  isCrisisMessage(body, counters[2])
  const read = body.normalize('NFKC').length
  const sides = [matcher, includesScan, plainScan]
  const calls = sides.map((f) => callsPerRound(f, body))
  const rounds: number[][] = [[], [], []]
  for (let i = 0; i < ROUNDS; i++) sides.forEach((f, side) => rounds[side]!.push(round(f, body, calls[side]!)))
  const [matcherTime, scanTime, plainTime] = rounds.map(median)
  return { label, length: body.length, matcher: matcherTime!, scan: scanTime!, plain: plainTime!, steps: Math.max(...counters.map((c) => c.steps)) / Math.max(1, read) }
}

/** A text as a webhook's body arrives: one flat string, decoded from the request (a text built by concatenation is a rope in V8). */
const asReceived = (body: string) => JSON.parse(JSON.stringify(body)) as string

const figures = (m: Measured) =>
  `${m.label} (${m.length} chars): matcher ${m.matcher.toFixed(1)} µs vs includes scan ${m.scan.toFixed(1)} µs per message, ratio ${(m.matcher / m.scan).toFixed(1)}x ` +
  `[scan without NFKC ${m.plain.toFixed(1)} µs, ratio ${(m.matcher / m.plain).toFixed(1)}x]`

/** The slowest message of a set and the one furthest from its scan; the goal holds when it holds for every message. */
function report(set: string, measured: Measured[]): boolean {
  const slowest = measured.reduce((a, b) => (b.matcher > a.matcher ? b : a))
  const furthest = measured.reduce((a, b) => (b.matcher / b.scan > a.matcher / a.scan ? b : a))
  const pass = measured.every((m) => m.matcher / m.scan <= GOAL_RATIO && m.matcher < GOAL_MS * 1000)
  const steps = Math.max(...measured.map((m) => m.steps))
  console.log(`${set}: slowest ${figures(slowest)}`)
  if (furthest !== slowest) console.log(`  highest ratio: ${figures(furthest)}`)
  console.log(`  every message at most ${GOAL_RATIO}x its scan and under ${GOAL_MS} ms: ${ok(pass)}; most steps per character read: ${steps.toFixed(1)}`)
  return pass
}

export function textsMatcherBench(): boolean {
  console.log(
    `  matcher: keywordOf + optOutOf + isCrisisMessage, each message read from scratch; includes scan: the text as the matcher reads it (NFKC, lower case), ` +
      `then String.prototype.includes for each of the ${PHRASE_VOCABULARY.length} words of the phrase tables (all of them, no early stop), what a naive keyword filter does; ` +
      `CPU time, median of ${ROUNDS} alternating rounds`,
  )
  const random = seededRandom(31)
  const randomTexts = Array.from({ length: RANDOM_TEXTS }, () => asReceived(randomText(random)))
  const craftedTexts = CRAFTED_TEXTS.map((t) => ({ family: t.family, body: asReceived(t.body) }))
  // Warm-up: every side compiled by the JIT before any figure is taken.
  for (let i = 0; i < 20; i++) for (const body of [...craftedTexts.map((t) => t.body), ...randomTexts]) sink += matcher(body) + includesScan(body) + plainScan(body)

  const crafted = craftedTexts.map((t) => measure(`"${t.family}"`, t.body))
  const craftedPass = report(`crafted 1,600-character texts (${crafted.length}, one per phrase family)`, crafted)
  const randomMeasured = randomTexts.map((body, i) => measure(`random text #${i + 1}`, body))
  const randomPass = report(`random texts of up to 1,600 characters (${randomTexts.length}, seeded)`, randomMeasured)
  if (sink === -1) console.log('') // keeps the results alive
  return craftedPass && randomPass
}
