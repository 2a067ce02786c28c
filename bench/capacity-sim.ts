/**
 * The perfect scheduler the capacity bench compares the product with: an exact discrete-event
 * simulation of the same calls (due instants, line hold times, caller numbers) on the same lines
 * and pace. Whenever a line is free and the pace allows a dial, the earliest-due waiting call whose
 * caller number may dial is dialled at that very instant: no tick, no queue, no network, no webhook
 * lag. The pace is a token bucket per second (fleet-wide, and one per caller number), refilled
 * continuously, holding at most `burst` dials. Time is in milliseconds.
 */

export type SimCall = {
  id: string
  dueAt: number
  /** How long the call holds its line from the dial (at Vapi: queued to ended). */
  holdMs: number
  /** The caller number it is dialled from (its own pace); one number when absent. */
  numberId?: string
}

export type Pace = { perSecond: number; burst: number }

export type SimSettings = {
  lines: number
  /** Fleet-wide dials per second. */
  pace: Pace
  /** Dials per second per caller number (none: only the fleet's pace). */
  perNumber?: Pace
}

export type SimResult = {
  /** Dial instant by call id. */
  dialledAt: Map<string, number>
  /** Lines in use over time: [instant, lines] at each change, in order. */
  lines: Array<[number, number]>
}

class Bucket {
  #tokens: number
  #at: number
  constructor(
    readonly pace: Pace,
    start: number,
  ) {
    this.#tokens = pace.burst
    this.#at = start
  }

  #refill(now: number) {
    if (now > this.#at) {
      this.#tokens = Math.min(this.pace.burst, this.#tokens + ((now - this.#at) * this.pace.perSecond) / 1000)
      this.#at = now
    }
  }

  /** Whether a dial may go now. */
  ready(now: number): boolean {
    this.#refill(now)
    return this.#tokens >= 1 - 1e-9
  }

  take(now: number) {
    this.#refill(now)
    this.#tokens -= 1
  }

  /** The instant the next token is there (now when it already is). */
  nextAt(now: number): number {
    this.#refill(now)
    return this.#tokens >= 1 - 1e-9 ? now : now + Math.ceil(((1 - this.#tokens) * 1000) / this.pace.perSecond)
  }
}

/** Replays the calls on a perfect scheduler. */
export function simulatePerfect(calls: readonly SimCall[], settings: SimSettings): SimResult {
  if (settings.lines < 1 || settings.pace.perSecond <= 0) throw new Error('the simulation needs at least one line and a positive pace')
  const order = [...calls].sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const start = order[0]?.dueAt ?? 0
  const fleet = new Bucket(settings.pace, start)
  const numbers = new Map<string, Bucket>()
  const numberBucket = (call: SimCall) => {
    if (!settings.perNumber) return undefined
    const key = call.numberId ?? ''
    let bucket = numbers.get(key)
    if (!bucket) numbers.set(key, (bucket = new Bucket(settings.perNumber, start)))
    return bucket
  }
  const dialledAt = new Map<string, number>()
  const lines: Array<[number, number]> = []
  /** The instants the lines in use free, kept sorted. */
  const frees: number[] = []
  const waiting: SimCall[] = []
  let arrived = 0
  let now = start

  while (dialledAt.size < order.length) {
    // Lines that freed by now, and calls due by now.
    while (frees.length > 0 && frees[0]! <= now) {
      frees.shift()
      lines.push([now, frees.length])
    }
    while (arrived < order.length && order[arrived]!.dueAt <= now) waiting.push(order[arrived++]!)
    // Dial while a line is free and the pace lets the earliest-due eligible call go.
    while (frees.length < settings.lines && waiting.length > 0 && fleet.ready(now)) {
      const index = waiting.findIndex((call) => numberBucket(call)?.ready(now) ?? true)
      if (index === -1) break
      const [call] = waiting.splice(index, 1)
      fleet.take(now)
      numberBucket(call!)?.take(now)
      dialledAt.set(call!.id, now)
      const free = now + call!.holdMs
      frees.splice(sortedIndex(frees, free), 0, free)
      lines.push([now, frees.length])
    }
    if (dialledAt.size === order.length) break
    // The next instant anything can change: a line frees, a call falls due, or a token arrives.
    const candidates: number[] = []
    if (frees.length > 0) candidates.push(frees[0]!)
    if (arrived < order.length) candidates.push(order[arrived]!.dueAt)
    if (waiting.length > 0 && frees.length < settings.lines) {
      const fleetAt = fleet.nextAt(now)
      const numberAt = settings.perNumber ? Math.min(...waiting.map((call) => numberBucket(call)!.nextAt(now))) : now
      candidates.push(Math.max(fleetAt, numberAt))
    }
    const next = Math.min(...candidates.filter((instant) => instant > now))
    if (!Number.isFinite(next)) throw new Error('simulation stalled')
    now = next
  }
  return { dialledAt, lines }
}

function sortedIndex(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (sorted[mid]! <= value) low = mid + 1
    else high = mid
  }
  return low
}

/**
 * The mean share of `limit` lines in use while calls waited: the union of the intervals from a
 * call's due instant to its dial (at least one due call not yet dialled), and the lines in use over
 * it (a step function: [instant, lines] at each change). 1 when nothing ever waited.
 */
export function lineUseWhileWaiting(waits: ReadonlyArray<[number, number]>, lines: ReadonlyArray<[number, number]>, limit: number): { share: number; waitedMs: number } {
  // The union of the waits.
  const spans = waits.filter(([from, to]) => to > from).sort((a, b) => a[0] - b[0])
  const union: Array<[number, number]> = []
  for (const [from, to] of spans) {
    const last = union.at(-1)
    if (last && from <= last[1]) last[1] = Math.max(last[1], to)
    else union.push([from, to])
  }
  const waitedMs = union.reduce((sum, [from, to]) => sum + (to - from), 0)
  if (waitedMs === 0) return { share: 1, waitedMs }
  // ∫ lines dt over the union: walk the step function and the spans together.
  const steps = [...lines].sort((a, b) => a[0] - b[0])
  let used = 0
  let index = 0
  let level = 0
  for (const [from, to] of union) {
    while (index < steps.length && steps[index]![0] <= from) level = steps[index++]![1]
    let at = from
    while (index < steps.length && steps[index]![0] < to) {
      used += level * (steps[index]![0] - at)
      at = steps[index]![0]
      level = steps[index++]![1]
    }
    used += level * (to - at)
  }
  return { share: used / (limit * waitedMs), waitedMs }
}
