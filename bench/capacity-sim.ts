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

type Pace = { perSecond: number; burst: number }

type SimSettings = {
  lines: number
  /** Fleet-wide dials per second. */
  pace: Pace
  /** Dials per second per caller number (none: only the fleet's pace). */
  perNumber?: Pace
}

type SimResult = {
  /** Dial instant by call id. */
  dialledAt: Map<string, number>
  /** Lines in use over time: [instant, lines] at each change, in order. */
  lines: Array<[number, number]>
}

class Bucket {
  readonly pace: Pace
  #tokens: number
  #at: number
  constructor(pace: Pace, start: number) {
    this.pace = pace
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

/** A binary min-heap of instants: the lines in use, by the instant each frees. */
class Frees {
  readonly #heap: number[] = []
  get size(): number {
    return this.#heap.length
  }
  peek(): number | undefined {
    return this.#heap[0]
  }
  push(value: number) {
    const heap = this.#heap
    heap.push(value)
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1
      if (heap[parent]! <= heap[i]!) break
      ;[heap[parent], heap[i]] = [heap[i]!, heap[parent]!]
      i = parent
    }
  }
  pop(): number | undefined {
    const heap = this.#heap
    const top = heap[0]
    const last = heap.pop()
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last
      for (let i = 0; ; ) {
        const left = 2 * i + 1
        const right = left + 1
        let least = i
        if (left < heap.length && heap[left]! < heap[least]!) least = left
        if (right < heap.length && heap[right]! < heap[least]!) least = right
        if (least === i) break
        ;[heap[least], heap[i]] = [heap[i]!, heap[least]!]
        i = least
      }
    }
    return top
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
  const frees = new Frees()
  // The calls due and not dialled, in due order: order[head..arrived) less those in `taken`
  // (dialled out of order, ahead of a call whose number had to wait for its pace).
  let head = 0
  let arrived = 0
  const taken = new Set<number>()
  let now = start

  while (dialledAt.size < order.length) {
    // Lines that freed by now, and calls due by now.
    while (frees.size > 0 && frees.peek()! <= now) {
      frees.pop()
      lines.push([now, frees.size])
    }
    while (arrived < order.length && order[arrived]!.dueAt <= now) arrived++
    // Dial while a line is free and the pace lets the earliest-due eligible call go.
    while (frees.size < settings.lines && head < arrived && fleet.ready(now)) {
      let index = -1
      for (let i = head; i < arrived; i++) {
        if (taken.has(i)) continue
        if (numberBucket(order[i]!)?.ready(now) ?? true) {
          index = i
          break
        }
      }
      if (index === -1) break
      const call = order[index]!
      taken.add(index)
      while (head < arrived && taken.has(head)) taken.delete(head++)
      fleet.take(now)
      numberBucket(call)?.take(now)
      dialledAt.set(call.id, now)
      frees.push(now + call.holdMs)
      lines.push([now, frees.size])
    }
    if (dialledAt.size === order.length) break
    // The next instant anything can change: a line frees, a call falls due, or a token arrives.
    const candidates: number[] = []
    if (frees.size > 0) candidates.push(frees.peek()!)
    if (arrived < order.length) candidates.push(order[arrived]!.dueAt)
    if (head < arrived && frees.size < settings.lines) {
      let numberAt = settings.perNumber ? Number.POSITIVE_INFINITY : now
      if (settings.perNumber) for (let i = head; i < arrived; i++) if (!taken.has(i)) numberAt = Math.min(numberAt, numberBucket(order[i]!)!.nextAt(now))
      candidates.push(Math.max(fleet.nextAt(now), numberAt))
    }
    const next = Math.min(...candidates.filter((instant) => instant > now))
    if (!Number.isFinite(next)) throw new Error('simulation stalled')
    now = next
  }
  return { dialledAt, lines }
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
