/**
 * The call watch: watching a phone call live (issue 14, docs/decisions/044): a daily call's status
 * and final transcript lines, published on the cluster bus to the person's channel where Vapi's
 * webhooks land (the calls service, calls/call-watch.ts), heard over the voice gateway's socket by
 * the person's open dashboards (`watch-calls`), and `end-phone-call` handed to the calls service.
 * The cluster bus (services/cluster-bus) carries the events between processes (docs/decisions/068).
 */
import type { Logger } from 'pino'
import type { VoiceServerMessage } from '#common/voice'
import { AppError } from '#server/lib/app-error'
import type { CallWatchEvent, ClusterBus } from '#server/services/cluster-bus'

type CallWatchDeps = {
  bus: ClusterBus
  log: Logger
  /** The person's phone calls live now, as `phone-call` events (a dashboard opened mid-call). */
  current(userId: string): Promise<CallWatchEvent[]>
  /** Ends one of the person's live phone calls (refusals are AppErrors). */
  end(userId: string, callId: string): Promise<void>
}

/** Events held while a new watcher's current state loads; the oldest go first beyond this. */
export const WATCH_BUFFER_MAX = 200
/** Calls whose last status a watcher remembers (to drop a status older than one it was sent). */
const WATCH_CALLS_MAX = 20

const RANK = { queued: 0, ringing: 1, 'in-progress': 2, ended: 3 } as const

export function createCallWatch(deps: CallWatchDeps) {
  const { bus, log } = deps
  return {
    /**
     * Subscribes a socket to the person's phone calls. The socket is sent the calls live now once
     * the subscription is ready, then every event; events that arrive meanwhile wait (bounded) and
     * follow. A call's status only moves forward on a socket: one older than what it was sent (a
     * status published before the current state was read, delivered after it) is dropped.
     */
    watch(userId: string, send: (message: VoiceServerMessage) => void): () => void {
      let held: CallWatchEvent[] | null = []
      let stopped = false
      const sent = new Map<string, number>()
      const deliver = (event: CallWatchEvent) => {
        if (event.type === 'phone-call') {
          const rank = RANK[event.status]
          if ((sent.get(event.callId) ?? -1) >= rank) return
          sent.delete(event.callId)
          sent.set(event.callId, rank)
          if (sent.size > WATCH_CALLS_MAX) sent.delete(sent.keys().next().value!)
        }
        send(event)
      }
      const subscription = bus.subscribe(userId, (event) => {
        // The channel also carries what the opt-in screen and the coach thread listen for: not a phone call's.
        if (stopped || event.type === 'text-opt-in' || event.type === 'coach-message' || event.type === 'coach-messages-read') return
        if (!held) return deliver(event)
        if (held.length >= WATCH_BUFFER_MAX) held.shift()
        held.push(event)
      })
      void (async () => {
        let current: CallWatchEvent[] = []
        try {
          await subscription.ready
        } catch (error) {
          log.warn({ err: error }, 'live: could not subscribe to the live phone-call events')
          if (!stopped) send({ type: 'error', code: 'SERVICE_UNAVAILABLE', message: 'Live call updates are not available right now.' })
        }
        try {
          if (!stopped) current = await deps.current(userId)
        } catch (error) {
          log.warn({ err: error }, 'live: could not read the calls live now')
        }
        if (stopped) return
        const waiting = held ?? []
        held = null
        for (const event of [...current, ...waiting]) deliver(event)
      })()
      return () => {
        stopped = true
        held = null
        subscription.unsubscribe()
      }
    },

    /** `end-phone-call`: the calls service checks the call is the person's and live, then ends it. */
    endPhoneCall(userId: string, callId: string): Promise<void> {
      return deps.end(userId, callId).catch((error: unknown) => {
        if (error instanceof AppError) throw error
        log.warn({ err: error, callId }, 'live: could not end a phone call')
        throw new AppError('SERVICE_UNAVAILABLE', 'The call could not be ended right now. Please try again.')
      })
    },

    close: () => bus.close(),
  }
}
