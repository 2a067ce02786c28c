/**
 * The realtime voice gateway (`GET /api/voice`, docs/decisions/042): the browser's sockets, each
 * with at most one voice call relayed to Vapi's WebSocket transport, the caps, backpressure, the
 * ends (the user, Vapi, the browser leaving, a sign-out, the server stopping) and what is saved
 * (the conversation's finals; the call's row, which the webhooks keep; its seconds against the
 * plan's budget, which also sets how long it may run). The route checks who may
 * connect before the upgrade and hands the socket to `accept`.
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type WebSocket from 'ws'
import type { VapiVoiceClient } from '#server/integrations/vapi-voice'
import type { Clock, Timers } from '#server/lib/clock'
import { clientNetwork } from '#server/lib/ip'
import { sharedSlots, type Slots } from '#server/lib/slots'
import { throttledWarn } from '#server/lib/throttled-warn'
import type { SessionsEnded } from '#server/services/accounts'
import type { ClusterBus, BusSubscription } from '#server/services/cluster-bus'
import { emptyMetrics, type CallContext, type VoiceBudget, type VoiceMetrics, type WebCalls } from './call'
import { CLOSE, VoiceConnection, type PhoneCallWatch, type Who } from './connection'
import { defaultVoiceSettings } from './limits'
import { withMemoryFallback } from '#server/lib/memory-fallback'
import { memoryLocks, redisLocks, type VoiceLocks } from './locks'
import type { VoiceConversations } from './recorder'

export { endReasonOf, mapVapiMessage, transcriptText, type UpstreamEvent } from './mapping'
export { AudioPump } from './pump'
export { TranscriptRules, VoiceRecorder, type VoiceConversations } from './recorder'
export { redisLocks } from './locks'

type VoiceDeps = {
  clock: Clock
  timers: Timers
  log: Logger
  /** Vapi's voice client when VAPI_API_KEY and VAPI_ASSISTANT_ID are set; otherwise `start` is refused. */
  vapi: VapiVoiceClient | undefined
  webCalls: WebCalls
  conversations: VoiceConversations
  /** The plan's voice minutes in the app: how long each call may run, and its seconds as it goes. */
  budget: VoiceBudget
  sessionIsLive(sessionId: string): Promise<boolean>
  /** The call's first line (an in-app conversation, not the daily call's greeting). */
  firstMessage: string
  /** Shared per-user call leases and socket counts (per client network, per person) across servers when set; in memory otherwise. */
  redis: Redis | undefined
  redisPrefix: string
  /** The live phone-call part (`watch-calls`, `end-phone-call`), when it is served. */
  phoneCalls: PhoneCallWatch
  /** Where every server hears of sessions signed out on any of them (`hearSignOuts`). */
  sessions: Pick<ClusterBus, 'onSessionsEnded'>
}

/** Why `admit` refused a socket: its client network, or its person, has as many open as allowed. */
type Admission = { slot: string } | { refused: 'network' | 'user' }

export function createVoice(deps: VoiceDeps) {
  const { clock, timers, log } = deps
  const settings = defaultVoiceSettings()
  const metrics = emptyMetrics()
  const now = () => clock.now().getTime()
  const redisDown = throttledWarn(log, 'voice: Redis is unavailable, one call per user and the sockets per network and per user are counted in memory until it is back', now)
  const locks: VoiceLocks = deps.redis ? withMemoryFallback(redisLocks(deps.redis, `${deps.redisPrefix}voice:`), memoryLocks(now), redisDown) : memoryLocks(now)
  // A socket holds two slots under one holder id: one of its client network's (an IPv6 client
  // counts as its /64, so the addresses of one home network are one client) and one of its person's
  // (a person with many tabs, or many addresses, is still one person).
  const networkSlots: Slots = sharedSlots(deps.redis, `${deps.redisPrefix}voice:ip:`, now, redisDown)
  const userSlots: Slots = sharedSlots(deps.redis, `${deps.redisPrefix}voice:user:`, now, redisDown)
  /** A slot lapses unless renewed: each socket renews its own at every heartbeat. */
  const slotTtlMs = () => settings.heartbeatMs * 3
  const releaseSlots = (ip: string, userId: string, slot: string) => {
    networkSlots.release(clientNetwork(ip), slot).catch(() => {})
    userSlots.release(userId, slot).catch(() => {})
  }
  /** Slots taken before an upgrade that has not completed yet: released if it never does. */
  const reserved = new Map<string, unknown>()
  const calls: CallContext | undefined = deps.vapi
    ? { clock, timers, log, vapi: deps.vapi, webCalls: deps.webCalls, conversations: deps.conversations, budget: deps.budget, locks, settings, firstMessage: deps.firstMessage, metrics }
    : undefined

  const connections = new Set<VoiceConnection>()
  let stopping = false
  /** Sign-outs on any server, heard once the socket route is served (`hearSignOuts`). */
  let hearing: BusSubscription | undefined

  const env = {
    clock,
    timers,
    settings,
    calls,
    phoneCalls: deps.phoneCalls,
    sessionIsLive: deps.sessionIsLive,
    heartbeat(connection: VoiceConnection) {
      networkSlots.renew(clientNetwork(connection.ip), connection.slot, slotTtlMs()).catch(() => {})
      userSlots.renew(connection.userId, connection.slot, slotTtlMs()).catch(() => {})
    },
    closed(connection: VoiceConnection) {
      if (!connections.delete(connection)) return
      metrics.droppedToBrowser += connection.dropped
      releaseSlots(connection.ip, connection.userId, connection.slot)
    },
  }

  const closeWhere = (match: (connection: VoiceConnection) => boolean, code: number, reason: 'signed-out' | 'server-restarting') =>
    Promise.all([...connections].filter(match).map((connection) => connection.close(code, reason))).then(() => {})

  const sessionsEnded = (ended: SessionsEnded): Promise<void> => {
    const match = 'sessionId' in ended ? (c: VoiceConnection) => c.sessionId === ended.sessionId : (c: VoiceConnection) => c.userId === ended.userId
    return closeWhere(match, CLOSE.normal, 'signed-out')
  }

  return {
    /** Whether voice calls can be made (Vapi key and assistant configured). */
    configured: calls !== undefined,
    /** The limits in force (tests may change them). */
    settings,
    /**
     * Before the upgrade: a slot for one more socket of the client's network and one of the
     * person's (on any server), or the refusal when the network has `connectionsPerIp` open or the
     * person `connectionsPerUser` (a stopping server takes none: refused as a full network). The
     * slot goes to `accept`; unused, it is released after `upgradeMs`.
     */
    async admit(ip: string, userId: string): Promise<Admission> {
      if (stopping) return { refused: 'network' }
      const slot = randomUUID()
      const network = clientNetwork(ip)
      if (!(await networkSlots.take(network, slot, settings.connectionsPerIp, slotTtlMs()))) return { refused: 'network' }
      if (!(await userSlots.take(userId, slot, settings.connectionsPerUser, slotTtlMs()))) {
        networkSlots.release(network, slot).catch(() => {})
        return { refused: 'user' }
      }
      reserved.set(
        slot,
        timers.setTimeout(() => {
          reserved.delete(slot)
          releaseSlots(ip, userId, slot)
        }, settings.upgradeMs),
      )
      return { slot }
    },
    /** Takes an upgraded, authenticated socket, with the slot `admit` gave it. */
    accept(socket: WebSocket, who: Who): void {
      const handle = reserved.get(who.slot)
      if (handle === undefined) {
        // Its reservation lapsed (or none was made): not counted, so not served.
        socket.close(CLOSE.policy, 'too many connections')
        return
      }
      reserved.delete(who.slot)
      timers.clearTimeout(handle)
      if (stopping) {
        releaseSlots(who.ip, who.userId, who.slot)
        socket.close(CLOSE.goingAway, 'server-restarting')
        return
      }
      const connection = new VoiceConnection(env, socket, who)
      connections.add(connection)
      connection.open()
    },
    /**
     * From now on, sessions signed out on any server close their sockets here (the socket route
     * calls it as it is registered; a worker, which holds no sockets, never does). Resolves once
     * heard; rejects when it cannot be yet (Redis down: it is heard once Redis is back, and this
     * server's own sign-outs close their sockets at once meanwhile).
     */
    hearSignOuts(): Promise<void> {
      hearing ??= deps.sessions.onSessionsEnded((ended) => void sessionsEnded(ended))
      return hearing.ready
    },
    /** The server is stopping: every call ends ('server-restarting') and every socket closes. */
    async shutdown(): Promise<void> {
      stopping = true
      hearing?.unsubscribe()
      await closeWhere(() => true, CLOSE.goingAway, 'server-restarting')
    },
    /** Open sockets, and the gateway's counters since start (dropped audio both ways included). */
    metrics(): VoiceMetrics & { connections: number } {
      let dropped = metrics.droppedToBrowser
      for (const connection of connections) dropped += connection.dropped
      return { ...metrics, callsEnded: { ...metrics.callsEnded }, droppedToBrowser: dropped, connections: connections.size }
    },
  }
}
