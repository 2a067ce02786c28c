/**
 * Vapi's lines: the calls the account may have at once (phone calls and voice calls in the app
 * share them), and the pace of new phone calls (fleet-wide, and per caller number). One count for
 * every server and worker, in Redis when it is configured (one script per decision, so two
 * processes never take the same last line), in memory otherwise (docs/decisions/069).
 *
 * A phone call that finds no line free waits in a queue ordered by its place (first attempts before
 * retries, then by due minute, a goal session before a check-in of the same minute): a line is
 * granted only to the waiters at the head, however many processes hold waiters. A line is held
 * under a lease (the call's longest length plus a margin), given back when the call's final status
 * or report is applied; a lease that lapses frees its line by itself.
 */
import type { Redis } from 'ioredis'
import type { Clock } from '#server/lib/clock'
import type { ClusterBus } from '#server/services/cluster-bus'

export type LineSettings = {
  /** VAPI_MAX_CONCURRENT_CALLS: the account's lines, unless Vapi told us its limit. */
  maxConcurrentCalls: number
  /** VAPI_LINES_RESERVED_FOR_APP: lines a phone call never takes (kept for the voice calls in the app). */
  reservedForApp: number
  /** VAPI_DIALS_PER_SECOND: new phone calls a second, fleet-wide. */
  dialsPerSecond: number
  /** VAPI_DIALS_PER_SECOND_PER_NUMBER: new phone calls a second from one caller number. */
  dialsPerSecondPerNumber: number
}

/** A phone call's place in the queue for a line. */
type LinePlace = {
  /** A retry (attempt 1 or 2) waits behind every first attempt. */
  retry: boolean
  dueAt: Date
  goalSession: boolean
}

export type PhoneLineRequest = {
  /** The call's id (the lease's holder). */
  holder: string
  place: LinePlace
  /** The caller number the call goes out from (its own pace); null: none configured. */
  numberId: string | null
  leaseMs: number
}

/** Granted: the line is held. Otherwise why not, and when to ask again. */
export type LineAnswer = { granted: true } | { granted: false; cause: 'lines_busy' | 'pace'; retryInMs: number; position: number }

export type LineState = { inUse: number; limit: number; waiting: number; learnedLimit: number | null }

export type CallLines = {
  /** Takes a line for a phone call when it is at the head of the queue and the pace allows; else queues it. */
  takePhone(request: PhoneLineRequest): Promise<LineAnswer>
  /** Takes a line for a voice call in the app (the reserved lines included); false when none is free. */
  takeApp(holder: string, leaseMs: number): Promise<boolean>
  /** Gives the holder's line back (nothing when it holds none). */
  release(holder: string): Promise<void>
  /** Settles when this process next gives a line back (a waiter asks again then, not only on its timer). */
  freed(): Promise<void>
  /** Leaves the queue without a line (the call was skipped, or its worker is stopping). */
  leave(holder: string): Promise<void>
  /**
   * Vapi said it had no line although this count had one free (lines taken outside this count: an
   * inbound call, another app on the account, a call that outlived its lease): no line is granted
   * to anyone until `ms` from now.
   */
  backOff(ms: number): Promise<void>
  /** What Vapi's answer said of the account's limit (`subscriptionLimits.concurrencyLimit`); it wins over the setting for a while. */
  learnLimit(limit: number): Promise<void>
  state(): Promise<LineState>
}

/** A signal for the waiters of this process: settles on each release, then a new one begins. */
function releases() {
  let wake = () => {}
  let next = new Promise<void>((resolve) => (wake = resolve))
  return {
    next: () => next,
    fire() {
      wake()
      next = new Promise<void>((resolve) => (wake = resolve))
    },
  }
}

/** How long a limit learned from Vapi is believed without a new answer saying it again. */
export const LEARNED_LIMIT_TTL_MS = 6 * 60 * 60_000
/** The longest a waiter of the in-memory lines waits without being woken before it asks again. */
const MEMORY_BACKSTOP_MS = 10 * 60_000
/** A waiter that has not asked again within this long is gone (its process died): it leaves the queue. */
const WAITER_TTL_MS = 30_000

/**
 * The queue's order as one number (a sorted set's score): retries after first attempts, then the
 * due minute, a goal session before a check-in, then the instant within the minute. Exact in a double.
 */
export function placeScore(place: LinePlace): number {
  const ms = place.dueAt.getTime()
  const minute = Math.floor(ms / 60_000)
  return (place.retry ? 1e13 : 0) + minute * 200_000 + (place.goalSession ? 0 : 100_000) + (ms - minute * 60_000)
}

/** The lines a phone call may use: the limit less the app's reserve, at least one. */
const phoneLines = (limit: number, reserved: number) => Math.max(1, limit - Math.min(reserved, limit - 1))

/** How soon a waiter asks again without being woken: the head of the queue often, the tail rarely (each ask is a script run). */
function retryDelay(position: number, freeForPhone: number, lines: number): number {
  const ahead = Math.max(0, position - freeForPhone)
  return Math.min(10_000, 1_000 + Math.floor((ahead / Math.max(1, lines)) * 1_000))
}

/**
 * The waiters a given-back line wakes at once (the rest ask on their timers): near the head, where
 * the next lines go; waking every waiter on every release would cost each one a script run.
 */
export const WAKE_DEPTH = 200

/**
 * The pace of one key as a sliding window: at most `count` dials in any `windowMs` (a whole number
 * of dials a second: that many in any second, which is how a carrier counts; below one a second:
 * one per 1/rate seconds). A burst of due calls takes the whole window's dials at once, in queue order.
 */
function paceWindow(perSecond: number): { count: number; windowMs: number } {
  const count = Math.max(1, Math.floor(perSecond))
  return { count, windowMs: Math.round((count * 1000) / perSecond) }
}

/** How soon a waiter that has a line coming but not the pace asks again: when the window frees, later the further back it is. */
function paceDelay(pause: number, position: number, perSecond: number): number {
  const { count, windowMs } = paceWindow(perSecond)
  return Math.min(5_000, Math.max(1, Math.ceil(pause + Math.floor(position / count) * windowMs)))
}

// ---------------------------------------------------------------------------------------------
// In memory (one process: the embedded mode).

export function memoryCallLines(settings: LineSettings, clock: Clock): CallLines {
  const leases = new Map<string, number>()
  const phoneLeases = new Set<string>()
  // A waiter of this process leaves the queue itself (granted, skipped, stopping or failing): none is ever stale.
  const waiters = new Map<string, { score: number }>()
  /** Each pace key's dials in its window (instants, oldest first). */
  const pace = new Map<string, number[]>()
  let learned: { limit: number; until: number } | null = null
  const released = releases()
  let blockedUntil = 0

  const limitNow = (now: number) => (learned && learned.until > now ? learned.limit : settings.maxConcurrentCalls)
  const tidy = (now: number) => {
    for (const [holder, until] of leases) {
      if (until > now) continue
      leases.delete(holder)
      phoneLeases.delete(holder)
    }
  }
  /** The dials `key` still allows in its window now, and when the oldest leaves it. */
  const paceRoom = (key: string, perSecond: number, now: number) => {
    const { count, windowMs } = paceWindow(perSecond)
    const recent = (pace.get(key) ?? []).filter((at) => at > now - windowMs)
    pace.set(key, recent)
    return { room: count - recent.length, wait: recent.length > 0 ? recent[0]! + windowMs - now : 0 }
  }
  const spend = (key: string, now: number) => pace.get(key)!.push(now)

  return {
    async takePhone({ holder, place, numberId, leaseMs }) {
      const now = clock.now().getTime()
      tidy(now)
      if (leases.has(holder)) return { granted: true }
      const score = placeScore(place)
      waiters.set(holder, { score })
      const limit = limitNow(now)
      const lines = phoneLines(limit, settings.reservedForApp)
      const free = Math.max(0, Math.min(lines - phoneLeases.size, limit - leases.size))
      const position = [...waiters.values()].filter((waiter) => waiter.score < score).length
      if (blockedUntil > now) return { granted: false, cause: 'lines_busy', position, retryInMs: blockedUntil - now }
      // Every line of this mode is given back in this process, which wakes the waiters (freed());
      // the timer is for a lease that lapses (its call's end never came).
      if (position >= free) return { granted: false, cause: 'lines_busy', position, retryInMs: Math.max(1000, Math.min(MEMORY_BACKSTOP_MS, Math.min(...leases.values()) - now)) }
      const numberKey = numberId ? `number:${numberId}` : null
      // The window's dials go to the head of the queue: a waiter further back than the dials left waits its turn.
      const fleet = paceRoom('fleet', settings.dialsPerSecond, now)
      const number = numberKey ? paceRoom(numberKey, settings.dialsPerSecondPerNumber, now) : { room: 1, wait: 0 }
      if (position >= fleet.room || number.room < 1) {
        const pause = position >= fleet.room ? fleet.wait : number.wait
        return { granted: false, cause: 'pace', position, retryInMs: paceDelay(pause, Math.max(0, position - fleet.room), settings.dialsPerSecond) }
      }
      spend('fleet', now)
      if (numberKey) spend(numberKey, now)
      waiters.delete(holder)
      leases.set(holder, now + leaseMs)
      phoneLeases.add(holder)
      return { granted: true }
    },
    async takeApp(holder, leaseMs) {
      const now = clock.now().getTime()
      tidy(now)
      if (!leases.has(holder) && (leases.size >= limitNow(now) || blockedUntil > now)) return false
      leases.set(holder, now + leaseMs)
      return true
    },
    async release(holder) {
      const held = leases.delete(holder)
      phoneLeases.delete(holder)
      waiters.delete(holder)
      if (held) released.fire()
    },
    freed: () => released.next(),
    async leave(holder) {
      waiters.delete(holder)
    },
    async learnLimit(limit) {
      learned = { limit, until: clock.now().getTime() + LEARNED_LIMIT_TTL_MS }
    },
    async backOff(ms) {
      blockedUntil = Math.max(blockedUntil, clock.now().getTime() + ms)
    },
    async state() {
      const now = clock.now().getTime()
      tidy(now)
      return { inUse: leases.size, limit: limitNow(now), waiting: waiters.size, learnedLimit: learned && learned.until > now ? learned.limit : null }
    },
  }
}

// ---------------------------------------------------------------------------------------------
// In Redis (every server and worker). Keys: {prefix}leases (holder → lease end, every call),
// {prefix}phone (the phone calls' leases), {prefix}queue (holder → place score), {prefix}seen
// (holder → when it last asked), {prefix}learned (what Vapi told us: its limit and until when,
// and until when it has no line at all),
// {prefix}pace:<key> (the dials of its sliding window). The instants are the app's clock (the
// servers' clocks are kept by NTP; tests drive theirs).

/** KEYS (every script): leases, phone leases, queue, seen, learned. ARGV[1]: now, ARGV[2]: the configured limit. */
const TIDY = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - ${WAITER_TTL_MS})
for _, holder in ipairs(gone) do redis.call('ZREM', KEYS[3], holder) redis.call('ZREM', KEYS[4], holder) end
local learned = nil
local told = redis.call('HMGET', KEYS[5], 'limit', 'until')
if told[1] and tonumber(told[2]) > now then learned = tonumber(told[1]) end
local limit = learned or tonumber(ARGV[2])
local blocked = tonumber(redis.call('HGET', KEYS[5], 'blocked') or '0')
`

/** KEYS: …, fleet pace, number pace (or ''). ARGV: now, limit, reserved, holder, score, lease ms, fleet count, fleet window, number count, number window. */
const TAKE_PHONE = `${TIDY}
local holder = ARGV[4]
if redis.call('ZSCORE', KEYS[2], holder) then return {1, 0, 0, 0, 0} end
redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), holder)
redis.call('ZADD', KEYS[4], now, holder)
local reserved = math.min(tonumber(ARGV[3]), limit - 1)
local lines = math.max(1, limit - reserved)
local free = math.max(0, math.min(lines - redis.call('ZCARD', KEYS[2]), limit - redis.call('ZCARD', KEYS[1])))
local position = redis.call('ZCOUNT', KEYS[3], '-inf', '(' .. ARGV[5])
if blocked > now then return {0, 3, position, blocked - now, lines} end
if position >= free then return {0, 1, position, free, lines} end
-- Each pace key: a sorted set of its window's dials (member: the holder, score: the instant).
local function room(key, count, window)
  if key == '' then return 1, 0 end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local used = redis.call('ZCARD', key)
  local wait = 0
  if used > 0 then wait = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) + window - now end
  return count - used, wait
end
local fleetRoom, fleetWait = room(KEYS[6], tonumber(ARGV[7]), tonumber(ARGV[8]))
local numberRoom, numberWait = room(KEYS[7], tonumber(ARGV[9]), tonumber(ARGV[10]))
if position >= fleetRoom or numberRoom < 1 then
  local pause = numberWait
  if position >= fleetRoom then pause = fleetWait end
  return {0, 2, position, math.ceil(pause), fleetRoom}
end
local function spend(key, window)
  if key == '' then return end
  redis.call('ZADD', key, now, holder .. '@' .. now)
  redis.call('PEXPIRE', key, window + 60000)
end
spend(KEYS[6], tonumber(ARGV[8]))
spend(KEYS[7], tonumber(ARGV[10]))
redis.call('ZREM', KEYS[3], holder)
redis.call('ZREM', KEYS[4], holder)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), holder)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), holder)
return {1, 0, 0, 0, 0}`

/** ARGV: now, limit, holder, lease ms. */
const TAKE_APP = `${TIDY}
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and (redis.call('ZCARD', KEYS[1]) >= limit or blocked > now) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
return 1`

/** KEYS: what Vapi told. ARGV: until, the key's expiry. The later of the two blocks wins. */
const BACK_OFF = `if tonumber(redis.call('HGET', KEYS[1], 'blocked') or '0') < tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'blocked', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])`

/** ARGV: now, limit. */
const STATE = `${TIDY}
return {redis.call('ZCARD', KEYS[1]), limit, redis.call('ZCARD', KEYS[3]), learned or -1}`

/** How the processes tell each other a line was given back (the cluster bus). */
type LinesSignal = Pick<ClusterBus, 'linesFreed' | 'onLinesFreed'>

export function redisCallLines(redis: Redis, prefix: string, settings: LineSettings, clock: Clock, signal?: LinesSignal): CallLines {
  const keys = [`${prefix}leases`, `${prefix}phone`, `${prefix}queue`, `${prefix}seen`, `${prefix}learned`]
  const now = () => clock.now().getTime()
  const fleetPace = paceWindow(settings.dialsPerSecond)
  const numberPace = paceWindow(settings.dialsPerSecondPerNumber)
  const released = releases()
  // A line given back by another process wakes this one's waiters too.
  let listening = false
  const listen = () => {
    if (listening || !signal) return
    listening = true
    signal.onLinesFreed(() => released.fire())
  }
  return {
    async takePhone({ holder, place, numberId, leaseMs }) {
      const answer = (await redis.eval(
        TAKE_PHONE,
        7,
        ...keys,
        `${prefix}pace:fleet`,
        numberId ? `${prefix}pace:number:${numberId}` : '',
        now(),
        settings.maxConcurrentCalls,
        settings.reservedForApp,
        holder,
        placeScore(place),
        leaseMs,
        fleetPace.count,
        fleetPace.windowMs,
        numberPace.count,
        numberPace.windowMs,
      )) as number[]
      const [granted, cause, position, value, fifth] = answer as [number, number, number, number, number]
      if (granted === 1) return { granted: true }
      if (cause === 1) return { granted: false, cause: 'lines_busy', position, retryInMs: retryDelay(position, value, fifth) }
      if (cause === 3) return { granted: false, cause: 'lines_busy', position, retryInMs: value }
      // The fifth figure is the dials the window still allows: a waiter behind them waits for later windows.
      return { granted: false, cause: 'pace', position, retryInMs: paceDelay(value, Math.max(0, position - fifth), settings.dialsPerSecond) }
    },
    async takeApp(holder, leaseMs) {
      return (await redis.eval(TAKE_APP, 5, ...keys, now(), settings.maxConcurrentCalls, holder, leaseMs)) === 1
    },
    async release(holder) {
      const results = await redis.multi().zrem(keys[0]!, holder).zrem(keys[1]!, holder).zrem(keys[2]!, holder).zrem(keys[3]!, holder).exec()
      if (results?.[0]?.[1] !== 1) return
      released.fire()
      await signal?.linesFreed()
    },
    freed: () => {
      listen()
      return released.next()
    },
    async leave(holder) {
      await redis.multi().zrem(keys[2]!, holder).zrem(keys[3]!, holder).exec()
    },
    async learnLimit(limit) {
      await redis.multi().hset(keys[4]!, 'limit', String(limit), 'until', String(now() + LEARNED_LIMIT_TTL_MS)).pexpire(keys[4]!, LEARNED_LIMIT_TTL_MS * 2).exec()
    },
    async backOff(ms) {
      await redis.eval(BACK_OFF, 1, keys[4]!, now() + ms, LEARNED_LIMIT_TTL_MS * 2)
    },
    async state() {
      const [inUse, limit, waiting, learned] = (await redis.eval(STATE, 5, ...keys, now(), settings.maxConcurrentCalls)) as number[]
      return { inUse: inUse!, limit: limit!, waiting: waiting!, learnedLimit: learned! < 0 ? null : learned! }
    },
  }
}

/** The lines of this deployment: shared through Redis when it is configured (a release heard on the cluster bus), in memory otherwise. */
export function callLines(redis: Redis | undefined, prefix: string, settings: LineSettings, clock: Clock, signal?: LinesSignal): CallLines {
  return redis ? redisCallLines(redis, prefix, settings, clock, signal) : memoryCallLines(settings, clock)
}

/**
 * The caller number of a person: always the same one of the list (a stable hash of their id), so
 * they can save it; null when none is configured.
 */
export function callerNumberOf(userId: string, numberIds: readonly string[]): string | null {
  if (numberIds.length === 0) return null
  let hash = 2166136261
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i)
    hash = Math.imul(hash, 16777619)
  }
  return numberIds[(hash >>> 0) % numberIds.length]!
}
