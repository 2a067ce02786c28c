/**
 * The demand side of the capacity plan (docs/capacity.md): one day of calls for N members in the
 * US zones, bunched 7–9 AM local, replayed on the perfect scheduler (bench/capacity-sim.ts) to find
 * the fewest Vapi lines that keep the p99 lateness under a target, and the dial rate they need.
 * `node --import tsx bench/capacity-plan.ts [members] [p99 target minutes] [targets,…]` (1,000,000;
 * 5; then 5, 15 and 60).
 * Deterministic (a seeded PRNG); every assumption is a constant below and is stated in the doc.
 */
import { seededRandom } from '../test/fakes/vapi-webhooks'
import { simulatePerfect, type SimCall } from './capacity-sim'

/** Share of members by zone (US population, rounded) and the zone's UTC offset in winter. */
const ZONES = [
  { name: 'Eastern', share: 0.47, utcOffset: -5 },
  { name: 'Central', share: 0.29, utcOffset: -6 },
  { name: 'Mountain', share: 0.07, utcOffset: -7 },
  { name: 'Pacific', share: 0.16, utcOffset: -8 },
  { name: 'Alaska and Hawaii', share: 0.01, utcOffset: -10 },
] as const
/** Plan mix: Basic (daily call, 5 min), Premium and Elite (plus the 7 PM check-in; 10 and 15 min). */
const PLANS = [
  { name: 'basic', share: 0.6, capSeconds: 300, evening: false },
  { name: 'premium', share: 0.3, capSeconds: 600, evening: true },
  { name: 'elite', share: 0.1, capSeconds: 900, evening: true },
] as const
/** Daily call times: 70% between 7:00 and 9:00 (55% of those in the first hour), the rest 9 AM–9 PM. */
const MORNING_SHARE = 0.7
const FIRST_HOUR_SHARE = 0.55
/** Within the morning: 50% on :00 or :30, 25% on :15 or :45, 25% any minute. */
const ON_THE_HALF_HOUR = 0.5
const ON_THE_QUARTER = 0.25
/** Evening check-ins: the default 7:00 PM for half, the rest spread 5–9 PM. */
const EVENING_DEFAULT_SHARE = 0.5
/** Answered calls talk a lognormal time (median 3.5 min, sigma 0.5), capped by the plan, after 6 s of ringing. */
const TALK_MEDIAN_S = 210
const TALK_SIGMA = 0.5
const RING_S = 6
/** 20% are not answered (30 s of ringing), retried 10 minutes later (once: the ladder's second retry is left out). */
const NO_ANSWER = 0.2
const NO_ANSWER_HOLD_S = 30
const RETRY_AFTER_S = 600

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
}

function pick<T extends { share: number }>(items: readonly T[], random: () => number): T {
  let left = random()
  for (const item of items) {
    left -= item.share
    if (left < 0) return item
  }
  return items.at(-1)!
}

/** Minutes after local midnight of a daily call. */
function dailyMinute(random: () => number): number {
  if (random() >= MORNING_SHARE) return 9 * 60 + Math.floor(random() * 12 * 60)
  const hour = random() < FIRST_HOUR_SHARE ? 7 : 8
  const kind = random()
  const minute = kind < ON_THE_HALF_HOUR ? (random() < 0.5 ? 0 : 30) : kind < ON_THE_HALF_HOUR + ON_THE_QUARTER ? (random() < 0.5 ? 15 : 45) : Math.floor(random() * 60)
  return hour * 60 + minute
}

/** The day's calls (first attempts and retries), instants in ms from 00:00 UTC. */
function dayOfCalls(members: number, seed = 1): { calls: SimCall[]; talkMinutes: number } {
  const random = seededRandom(seed)
  const calls: SimCall[] = []
  let talkMinutes = 0
  const add = (id: string, dueAt: number, capSeconds: number) => {
    const answered = random() >= NO_ANSWER
    const talk = Math.min(capSeconds, TALK_MEDIAN_S * Math.exp(TALK_SIGMA * normal(random)))
    const holdMs = (answered ? RING_S + talk : NO_ANSWER_HOLD_S) * 1000
    if (answered) talkMinutes += talk / 60
    calls.push({ id, dueAt, holdMs })
    if (!answered) {
      const retryTalk = Math.min(capSeconds, TALK_MEDIAN_S * Math.exp(TALK_SIGMA * normal(random)))
      const retryAnswered = random() >= NO_ANSWER
      if (retryAnswered) talkMinutes += retryTalk / 60
      calls.push({ id: `${id}r`, dueAt: dueAt + holdMs + RETRY_AFTER_S * 1000, holdMs: (retryAnswered ? RING_S + retryTalk : NO_ANSWER_HOLD_S) * 1000 })
    }
  }
  for (let i = 0; i < members; i++) {
    const zone = pick(ZONES, random)
    const plan = pick(PLANS, random)
    const toUtc = -zone.utcOffset * 60
    add(`m${i}`, (dailyMinute(random) + toUtc) * 60_000, plan.capSeconds)
    if (plan.evening) {
      const local = random() < EVENING_DEFAULT_SHARE ? 19 * 60 : 17 * 60 + Math.floor(random() * 240)
      add(`e${i}`, (local + toUtc) * 60_000, plan.capSeconds)
    }
  }
  return { calls, talkMinutes }
}

/** A pace that never holds a dial back. */
const UNLIMITED = 1_000_000

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

/** The perfect scheduler's p99 lateness (ms) and its busiest second and minute of dials, on `lines`. */
function replay(calls: readonly SimCall[], lines: number, perSecond: number) {
  // Dials evenly spaced, as the product paces them; an unlimited pace has no spacing at all.
  const { dialledAt } = simulatePerfect(calls, { lines, pace: { perSecond, burst: perSecond >= UNLIMITED ? perSecond : 1 } })
  const lateness = calls.map((call) => dialledAt.get(call.id)! - call.dueAt).sort((a, b) => a - b)
  const bySecond = new Map<number, number>()
  const byMinute = new Map<number, number>()
  for (const at of dialledAt.values()) {
    bySecond.set(Math.floor(at / 1000), (bySecond.get(Math.floor(at / 1000)) ?? 0) + 1)
    byMinute.set(Math.floor(at / 60_000), (byMinute.get(Math.floor(at / 60_000)) ?? 0) + 1)
  }
  const most = (counts: Map<number, number>) => [...counts.values()].reduce((a, b) => Math.max(a, b), 0)
  return { p99: quantile(lateness, 0.99), p50: quantile(lateness, 0.5), max: lateness.at(-1)!, peakSecond: most(bySecond), peakMinute: most(byMinute) }
}

/** The fewest lines (to 1%) whose perfect p99 lateness is within the target. */
function linesFor(calls: readonly SimCall[], targetMs: number, perSecond: number, guess = 1): number {
  let low = 1
  let high = Math.max(1, Math.round(guess))
  while (replay(calls, high, perSecond).p99 > targetMs) high *= 2
  while (high - low > Math.max(1, Math.round(high / 100))) {
    const mid = Math.floor((low + high) / 2)
    if (replay(calls, mid, perSecond).p99 > targetMs) low = mid
    else high = mid
  }
  return high
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const members = Number(process.argv[2] ?? 1_000_000)
  const targetMinutes = Number(process.argv[3] ?? 5)
  const { calls, talkMinutes } = dayOfCalls(members)
  const holds = calls.map((call) => call.holdMs)
  const meanHold = holds.reduce((sum, hold) => sum + hold, 0) / holds.length
  const dueByMinute = new Map<number, number>()
  for (const call of calls) dueByMinute.set(Math.floor(call.dueAt / 60_000), (dueByMinute.get(Math.floor(call.dueAt / 60_000)) ?? 0) + 1)
  const busiestMinute = [...dueByMinute].sort((a, b) => b[1] - a[1])[0]!
  const byHour = new Map<number, number>()
  for (const call of calls) byHour.set(Math.floor(call.dueAt / 3_600_000), (byHour.get(Math.floor(call.dueAt / 3_600_000)) ?? 0) + 1)
  const busiestHour = [...byHour].sort((a, b) => b[1] - a[1])[0]!
  const hourlyHold = (busiestHour[1] / 3600) * (meanHold / 1000)
  console.log(`members ${members}; calls a day ${calls.length} (retries included); talk ${Math.round(talkMinutes)} min a day; mean line hold ${(meanHold / 1000).toFixed(0)} s`)
  console.log(`busiest hour ${busiestHour[0] % 24}:00 UTC: ${busiestHour[1]} calls (${(busiestHour[1] / 3600).toFixed(1)}/s, Little's law ${Math.round(hourlyHold)} lines); busiest minute ${Math.floor(busiestMinute[0] / 60) % 24}:${String(busiestMinute[0] % 60).padStart(2, '0')} UTC: ${busiestMinute[1]} calls due`)
  const targets = (process.argv[4] ?? `${targetMinutes},15,60`).split(',').map(Number)
  for (const minutes of targets) {
    const lines = linesFor(calls, minutes * 60_000, UNLIMITED, hourlyHold)
    const figures = replay(calls, lines, UNLIMITED)
    console.log(`p99 lateness <= ${minutes} min: ${lines} lines (perfect p50 ${(figures.p50 / 1000).toFixed(0)} s, p99 ${(figures.p99 / 1000).toFixed(0)} s, max ${(figures.max / 60_000).toFixed(1)} min); dials: busiest second ${figures.peakSecond}, busiest minute ${figures.peakMinute} (${(figures.peakMinute / 60).toFixed(1)}/s)`)
    for (const perSecond of [Math.ceil(figures.peakMinute / 60), Math.ceil((2 * figures.peakMinute) / 60)]) {
      const paced = replay(calls, lines, perSecond)
      console.log(`  with ${perSecond} dials/s fleet-wide: p50 ${(paced.p50 / 1000).toFixed(0)} s, p99 ${(paced.p99 / 1000).toFixed(0)} s, max ${(paced.max / 60_000).toFixed(1)} min`)
    }
  }
}
