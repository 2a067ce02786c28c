import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import { CoachThreadEventSchema, type CoachThreadEvent } from '#common/coach'
import { TextOptInEventSchema, type TextOptInEvent } from '#common/texts'
import { VoiceServerMessageSchema, type VoiceServerMessage } from '#common/voice'

/** What a watching dashboard is told about the person's phone calls (common/voice.ts). */
export type CallWatchEvent = Extract<VoiceServerMessage, { type: 'phone-call' | 'phone-transcript' }>
/**
 * Everything the per-user channel carries: the phone calls' events, a START text that arrived (the
 * opt-in screen), and the coach thread's messages and read receipts (both sides' streams).
 */
export type BusEvent = CallWatchEvent | TextOptInEvent | CoachThreadEvent
export type BusListener = (event: BusEvent) => void

/** Sessions signed out (one, or all of a person's): every server process closes their sockets. */
export type SessionsEndedNotice = { sessionId: string } | { userId: string }
export type SessionsEndedListener = (ended: SessionsEndedNotice) => void

const SessionsEndedNoticeSchema = z.union([z.object({ sessionId: z.string().min(1) }).strict(), z.object({ userId: z.string().min(1) }).strict()])
/** On the Redis channel: the notice, and which bus sent it (a process has told itself already). */
const SessionsEndedMessageSchema = z.object({ from: z.string().min(1), ended: SessionsEndedNoticeSchema }).strict()

export type BusSubscription = {
  /** Resolves once events published from now on reach the listener (Redis: SUBSCRIBE answered). */
  ready: Promise<void>
  unsubscribe(): void
}

/**
 * The cluster bus (docs/decisions/068): per user, a channel of the call watch's events (published
 * where Vapi's webhooks land, heard where the person's dashboards are connected) and of a START
 * text that arrived; to every process, the sessions that ended. In-process without Redis; Redis
 * pub/sub with it, so a webhook on one server reaches a dashboard on another.
 */
export type ClusterBus = {
  /**
   * Publishes an event to the user's channel. With `once`, an event under the same key within
   * `onceMs` is dropped (a webhook delivered twice). Never throws.
   */
  publish(userId: string, event: BusEvent, once?: string): Promise<void>
  subscribe(userId: string, listener: BusListener): BusSubscription
  /**
   * Tells every server process, this one included, that sessions ended (a sign-out on one server
   * must close that session's sockets on all of them). This process's listeners are told at once;
   * the others through one Redis channel every process holding such sockets listens to. Never
   * throws; while Redis cannot be reached, only this process is told.
   */
  sessionsEnded(ended: SessionsEndedNotice): Promise<void>
  /** Hears every process's `sessionsEnded` (this one's included) from now on. */
  onSessionsEnded(listener: SessionsEndedListener): BusSubscription
  /** Tells the other processes a Vapi line was given back: their calls waiting for one ask again (docs/decisions/069). Never throws. */
  linesFreed(): Promise<void>
  /** Hears the other processes' `linesFreed` from now on. */
  onLinesFreed(listener: () => void): BusSubscription
  close(): Promise<void>
}

/** A set of listeners called with no argument, each failure its own. */
function signalListeners() {
  const all = new Set<() => void>()
  return {
    all,
    fire() {
      for (const listener of [...all]) {
        try {
          listener()
        } catch {
          // One listener's failure is not the sender's.
        }
      }
    },
  }
}

/** This process's sessions-ended listeners. */
class SessionsEndedListeners {
  readonly #all = new Set<SessionsEndedListener>()

  add(listener: SessionsEndedListener): boolean {
    this.#all.add(listener)
    return this.#all.size === 1
  }

  remove(listener: SessionsEndedListener): boolean {
    return this.#all.delete(listener) && this.#all.size === 0
  }

  get any(): boolean {
    return this.#all.size > 0
  }

  deliver(ended: SessionsEndedNotice): void {
    for (const listener of [...this.#all]) {
      try {
        listener(ended)
      } catch {
        // One listener's failure is not the publisher's.
      }
    }
  }
}

/** How long a `once` key is remembered (longer than any call). */
const ONCE_MS = 2 * 3_600_000
/** Keys remembered in memory at most (the oldest are forgotten first). */
const MEMORY_ONCE_MAX = 10_000

/** The keys already seen, each for ONCE_MS, bounded. */
function memoryOnce(now: () => number) {
  const seen = new Map<string, number>()
  return (key: string): boolean => {
    const at = now()
    const until = seen.get(key)
    if (until !== undefined && until > at) return false
    seen.delete(key)
    seen.set(key, at + ONCE_MS)
    if (seen.size > MEMORY_ONCE_MAX) {
      for (const [old, expires] of seen) {
        if (seen.size <= MEMORY_ONCE_MAX && expires > at) break
        seen.delete(old)
      }
    }
    return true
  }
}

/** This process's listeners by user. */
class Listeners {
  readonly #byUser = new Map<string, Set<BusListener>>()

  /** Adds a listener; true when it is the user's first (the caller subscribes the channel). */
  add(userId: string, listener: BusListener): boolean {
    const set = this.#byUser.get(userId)
    if (set) {
      set.add(listener)
      return false
    }
    this.#byUser.set(userId, new Set([listener]))
    return true
  }

  /** Removes a listener; true when it was the user's last (the caller unsubscribes the channel). */
  remove(userId: string, listener: BusListener): boolean {
    const set = this.#byUser.get(userId)
    if (!set?.delete(listener)) return false
    if (set.size > 0) return false
    this.#byUser.delete(userId)
    return true
  }

  deliver(userId: string, event: BusEvent): void {
    for (const listener of [...(this.#byUser.get(userId) ?? [])]) {
      try {
        listener(event)
      } catch {
        // One socket's failure is not the publisher's.
      }
    }
  }
}

/** The in-process bus (no Redis): one server process sees its own webhooks. */
export function memoryClusterBus(now: () => number): ClusterBus {
  const listeners = new Listeners()
  const ended = new SessionsEndedListeners()
  const firstTime = memoryOnce(now)
  return {
    async publish(userId, event, once) {
      if (once !== undefined && !firstTime(once)) return
      listeners.deliver(userId, event)
    },
    subscribe(userId, listener) {
      listeners.add(userId, listener)
      return { ready: Promise.resolve(), unsubscribe: () => void listeners.remove(userId, listener) }
    },
    async sessionsEnded(notice) {
      ended.deliver(notice)
    },
    onSessionsEnded(listener) {
      ended.add(listener)
      return { ready: Promise.resolve(), unsubscribe: () => void ended.remove(listener) }
    },
    // One process: whoever gives a line back wakes its own waiters.
    async linesFreed() {},
    onLinesFreed: () => ({ ready: Promise.resolve(), unsubscribe: () => {} }),
    async close() {},
  }
}

/** SET NX the key, then PUBLISH: one round trip, and a duplicate is never published. */
const PUBLISH_ONCE = `if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return redis.call('PUBLISH', KEYS[2], ARGV[2]) end
return -1`

type RedisClusterBusOptions = {
  /** Prefix of the channels (`<prefix><user id>`) and of the `once` keys (`<prefix>once:<key>`). */
  prefix: string
  now: () => number
  /** Redis could not be reached; the event was delivered in this process only. */
  onError(error: Error): void
}

/**
 * Redis pub/sub, one channel per user (`<prefix><user id>`): a server subscribes to the channels of
 * the people whose dashboards it holds, so Redis sends each server only what it serves. Publishing
 * goes through the shared connection; listening through one subscriber connection per process,
 * opened at the first subscription (a worker, which only publishes, never opens one). While Redis
 * cannot be reached, an event is delivered to this process's own listeners.
 */
export function redisClusterBus(redis: Redis, options: RedisClusterBusOptions): ClusterBus {
  const { prefix } = options
  const listeners = new Listeners()
  const ended = new SessionsEndedListeners()
  const firstTime = memoryOnce(options.now)
  const channelOf = (userId: string) => `${prefix}${userId}`
  /** Not a user's channel: user ids never start with '~'. */
  const sessionsChannel = `${prefix}~sessions-ended`
  const linesChannel = `${prefix}~lines-freed`
  const freed = signalListeners()
  /** This bus, on what it publishes there: it delivers its own notices at once, not off the channel. */
  const busId = randomUUID()
  /** Each subscribed user's SUBSCRIBE (answered or on its way). */
  const subscribed = new Map<string, Promise<void>>()
  let subscriber: Redis | undefined
  let closed = false

  const connection = (): Redis => {
    if (subscriber) return subscriber
    // Its own connection (a subscribed connection can do nothing else); commands wait while it connects.
    const created = redis.duplicate({ lazyConnect: false, enableOfflineQueue: true, maxRetriesPerRequest: 2 })
    created.on('error', (error: Error) => options.onError(error))
    created.on('message', (channel: string, raw: string) => {
      if (channel === sessionsChannel) {
        const message = parseSessionsEnded(raw)
        if (message && message.from !== busId) ended.deliver(message.ended)
        return
      }
      if (channel === linesChannel) {
        if (raw !== busId) freed.fire()
        return
      }
      if (!channel.startsWith(prefix)) return
      const event = parseEvent(raw)
      if (event) listeners.deliver(channel.slice(prefix.length), event)
    })
    // ioredis subscribes again, on reconnecting, to the channels whose SUBSCRIBE was answered; the
    // sessions channel's, if it failed (Redis down at start), is sent again once Redis is back.
    created.on('ready', () => {
      if (ended.any && !closed) sessions.ensure()
      if (freed.all.size > 0 && !closed) lines.ensure()
    })
    subscriber = created
    return created
  }

  /** A channel every process listening hears (not a user's): its SUBSCRIBE, sent again if it failed. */
  const everyProcess = (channel: string) => {
    let sent: Promise<void> | undefined
    return {
      /** Subscribes unless it is (or is being); resolves once Redis answered. */
      ensure(): Promise<void> {
        if (sent) return sent
        const subscribing = connection()
          .subscribe(channel)
          .then(() => {})
        subscribing.catch(() => {
          if (sent === subscribing) sent = undefined
        })
        sent = subscribing
        return subscribing
      },
      drop(): void {
        sent = undefined
        if (subscriber && !closed) subscriber.unsubscribe(channel).catch(() => {})
      },
    }
  }
  const sessions = everyProcess(sessionsChannel)
  const lines = everyProcess(linesChannel)

  return {
    async publish(userId, event, once) {
      const payload = JSON.stringify(event)
      try {
        if (once === undefined) await redis.publish(channelOf(userId), payload)
        else await redis.eval(PUBLISH_ONCE, 2, `${prefix}once:${once}`, channelOf(userId), ONCE_MS, payload)
      } catch (error) {
        options.onError(error as Error)
        if (once === undefined || firstTime(once)) listeners.deliver(userId, event)
      }
    },
    subscribe(userId, listener) {
      if (closed) return { ready: Promise.reject(new Error('the cluster bus is closed')), unsubscribe: () => {} }
      // The user's first listener here subscribes the channel; later ones share it. Commands on
      // the one connection run in order, so a SUBSCRIBE after an UNSUBSCRIBE of the same channel wins.
      // A SUBSCRIBE that failed (Redis down) is sent again by the user's next watcher.
      if (listeners.add(userId, listener) || !subscribed.has(userId)) {
        const sent = connection()
          .subscribe(channelOf(userId))
          .then(() => {})
        sent.catch(() => {
          if (subscribed.get(userId) === sent) subscribed.delete(userId)
        })
        subscribed.set(userId, sent)
      }
      const ready = subscribed.get(userId)!
      return {
        ready,
        unsubscribe: () => {
          if (!listeners.remove(userId, listener)) return
          subscribed.delete(userId)
          if (subscriber && !closed) subscriber.unsubscribe(channelOf(userId)).catch(() => {})
        },
      }
    },
    async sessionsEnded(notice) {
      // This process at once (whether or not Redis answers), the others through the channel.
      ended.deliver(notice)
      try {
        await redis.publish(sessionsChannel, JSON.stringify({ from: busId, ended: notice }))
      } catch (error) {
        options.onError(error as Error)
      }
    },
    onSessionsEnded(listener) {
      if (closed) return { ready: Promise.reject(new Error('the cluster bus is closed')), unsubscribe: () => {} }
      ended.add(listener)
      return {
        ready: sessions.ensure(),
        unsubscribe: () => {
          if (ended.remove(listener)) sessions.drop()
        },
      }
    },
    async linesFreed() {
      try {
        await redis.publish(linesChannel, busId)
      } catch (error) {
        options.onError(error as Error)
      }
    },
    onLinesFreed(listener) {
      if (closed) return { ready: Promise.reject(new Error('the cluster bus is closed')), unsubscribe: () => {} }
      freed.all.add(listener)
      return {
        ready: lines.ensure(),
        unsubscribe: () => {
          if (freed.all.delete(listener) && freed.all.size === 0) lines.drop()
        },
      }
    },
    async close() {
      closed = true
      const connection = subscriber
      subscriber = undefined
      if (connection) await connection.quit().catch(() => connection.disconnect())
    },
  }
}

function parseSessionsEnded(raw: string): z.infer<typeof SessionsEndedMessageSchema> | null {
  try {
    const parsed = SessionsEndedMessageSchema.safeParse(JSON.parse(raw))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** An event from the channel, checked against the protocol (anything else is dropped). */
function parseEvent(raw: string): BusEvent | null {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return null
  }
  const optIn = TextOptInEventSchema.safeParse(json)
  if (optIn.success) return optIn.data
  const thread = CoachThreadEventSchema.safeParse(json)
  if (thread.success) return thread.data
  const parsed = VoiceServerMessageSchema.safeParse(json)
  if (!parsed.success) return null
  const message = parsed.data
  return message.type === 'phone-call' || message.type === 'phone-transcript' ? message : null
}
