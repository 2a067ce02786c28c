/**
 * What the product measures of itself, in Prometheus's terms (prom-client): one registry per
 * process (the server's, the worker's), served on METRICS_PORT (./metrics-server). Names follow
 * Prometheus's conventions (base units, `_total` counters, `_seconds` durations) under `momentum_`,
 * plus prom-client's default process metrics. Every label takes a value from a closed set (route
 * patterns, kinds, outcomes, provider codes): never a user id, phone number, call id or raw path.
 *
 * Counters and histograms are moved where things happen (through the typed methods below, so a
 * label can only take a known value); the gauges of shared state (Vapi's lines, queues, parked
 * webhook events) are read from their source when Prometheus scrapes (`provide`).
 * docs/decisions/075-metrics.md.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Logger } from 'pino'

/** A call's kind as counted: a scheduled check-in, the monthly goal session, or a 'Call me now'. */
const CALL_KINDS = ['check_in', 'goal_session', 'call_now'] as const
export type CountedCallKind = (typeof CALL_KINDS)[number]
/** What became of one try of a place-call job. */
const DIAL_OUTCOMES = ['placed', 'reconciled', 'failed', 'skipped', 'no_line_free', 'line_refused', 'deferred', 'duplicate', 'not_configured', 'no_user'] as const
type DialOutcome = (typeof DIAL_OUTCOMES)[number]
/** How a call ended: the person reached, not reached (no answer, busy, voicemail), our side's failure, Vapi's or the carrier's, or cancelled. */
const ENDED_REASON_CLASSES = ['reached', 'not_reached', 'our_fault', 'vendor_fault', 'cancelled'] as const
export type EndedReasonClass = (typeof ENDED_REASON_CLASSES)[number]
const TEXT_SEND_STATUSES = ['sent', 'logged', 'failed', 'skipped'] as const
type WebhookProvider = 'vapi' | 'twilio' | 'stripe'

/** Twilio's refusal codes kept as their own label value; any other is counted as `other`. */
const KNOWN_TEXT_CODES = new Set([21211, 21408, 21610, 21612, 21614, 30003, 30004, 30005, 30006, 30007, 30008, 30034])
/** A provider's event type kept as a label only when it looks like one (letters, digits, `.`, `-`, `_`; short). */
const EVENT_TYPE = /^[a-z][a-z0-9._-]{0,63}$/

/** Gauges read from shared state when Prometheus scrapes: each source may be missing in a process. */
type MetricSources = {
  /** Vapi's lines as the fleet's count has them. */
  lines?: () => Promise<{ inUse: number; limit: number }>
  /** Webhook events parked after too many failures. */
  deadWebhookEvents?: () => Promise<number>
  /** Each queue's runs ready to run and not started, and how long the oldest has waited. */
  queues?: () => Promise<Array<{ queue: string; waiting: number; oldestWaitingSeconds: number }>>
  /** The voice gateway's open sessions and audio frames dropped since start. */
  voice?: () => { sessions: number; droppedToBrowser: number; droppedToVapi: number }
}

/** prom-client's default gauges with a counter's `_total` suffix. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']

/** A source that takes longer than this is left out of the scrape (its gauge keeps its last value). */
const SOURCE_TIMEOUT_MS = 2000

export type Metrics = ReturnType<typeof createMetrics>

export function createMetrics(options: { log?: Logger; processMetrics?: boolean } = {}) {
  const registry = new Registry()
  if (options.processMetrics !== false) {
    collectDefaultMetrics({ register: registry })
    // Gauges prom-client names like counters (promtool's lint refuses a `_total` gauge); their
    // per-type twins (nodejs_active_handles, …) stay.
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name)
  }
  const registers = [registry]
  const sources: MetricSources = {}
  let log = options.log

  /**
   * One read of a source per scrape, shared by the gauges it feeds (prom-client collects the metrics
   * of a scrape at once): a read in flight, or one that settled within the last second, is reused.
   */
  const shared = new Map<string, { at: number; value: Promise<unknown> }>()
  const readShared = <T>(name: string, source: () => Promise<T>): Promise<T> => {
    const now = performance.now()
    const cached = shared.get(name)
    if (cached && now - cached.at < 1000) return cached.value as Promise<T>
    const value = source()
    shared.set(name, { at: now, value })
    return value
  }

  /** Reads one source for a scrape; a failure or a slow source leaves the gauge as it was (and is logged). */
  const read = async <T>(name: string, source: (() => Promise<T>) | undefined, apply: (value: T) => void): Promise<void> => {
    if (!source) return
    let timer: NodeJS.Timeout | undefined
    try {
      const value = await Promise.race([
        readShared(name, source),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${SOURCE_TIMEOUT_MS} ms`)), SOURCE_TIMEOUT_MS)
        }),
      ])
      apply(value)
    } catch (error) {
      log?.warn({ err: error, source: name }, 'metrics: a source could not be read for this scrape')
    } finally {
      clearTimeout(timer)
    }
  }

  const httpDuration = new Histogram({
    name: 'momentum_http_request_duration_seconds',
    help: 'HTTP requests served, by route pattern, method and status class.',
    labelNames: ['route', 'method', 'status_class'] as const,
    // OpenTelemetry's http.server.request.duration buckets.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
    registers,
  })
  const callsDue = new Counter({
    name: 'momentum_calls_due_total',
    help: 'Calls that came due and whose dial began (a place-call job’s first try with a claim).',
    labelNames: ['kind'] as const,
    registers,
  })
  const callsDialled = new Counter({
    name: 'momentum_calls_dialled_total',
    help: 'Tries of a place-call job by what became of them (placed: Vapi accepted the call).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  })
  const callsEnded = new Counter({
    name: 'momentum_calls_ended_total',
    help: 'Phone calls that reached their final status, by class of Vapi’s ended reason.',
    labelNames: ['reason_class'] as const,
    registers,
  })
  const callLateness = new Histogram({
    name: 'momentum_call_lateness_seconds',
    help: 'From the instant a call was due to the instant its dial went out.',
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  })
  const linesInUse = new Gauge({
    name: 'momentum_vapi_lines_in_use',
    help: 'Vapi lines held now by the fleet’s calls (phone and in the app), as the fleet’s count has them.',
    aggregator: 'max',
    registers,
    collect: () => read('lines', sources.lines, ({ inUse }) => linesInUse.set(inUse)),
  })
  const linesLimit = new Gauge({
    name: 'momentum_vapi_lines_limit',
    help: 'Vapi lines the fleet may use at once (the setting, or the limit Vapi stated).',
    aggregator: 'max',
    registers,
    collect: () => read('lines', sources.lines, ({ limit }) => linesLimit.set(limit)),
  })
  const webhookEvents = new Counter({
    name: 'momentum_webhook_events_total',
    help: 'Webhook events received and verified, by provider and event type.',
    labelNames: ['provider', 'type'] as const,
    registers,
  })
  const webhookLag = new Histogram({
    name: 'momentum_webhook_event_lag_seconds',
    help: 'From the provider’s time of an event to its receipt here.',
    labelNames: ['provider'] as const,
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers,
  })
  const webhookDead = new Gauge({
    name: 'momentum_webhook_events_dead',
    help: 'Webhook events parked after too many failed applications (they wait for an operator).',
    aggregator: 'max',
    registers,
    collect: () => read('deadWebhookEvents', sources.deadWebhookEvents, (count) => webhookDead.set(count)),
  })
  const jobsWaiting = new Gauge({
    name: 'momentum_jobs_waiting',
    help: 'Job runs ready to run and not started, by queue (delayed runs whose time has come included).',
    labelNames: ['queue'] as const,
    aggregator: 'max',
    registers,
    collect: () =>
      read('queues', sources.queues, (queues) => {
        for (const { queue, waiting } of queues) jobsWaiting.set({ queue }, waiting)
      }),
  })
  const jobsOldest = new Gauge({
    name: 'momentum_jobs_oldest_waiting_seconds',
    help: 'How long the oldest run ready to run has waited, by queue (0 when none waits).',
    labelNames: ['queue'] as const,
    aggregator: 'max',
    registers,
    collect: () =>
      read('queues', sources.queues, (queues) => {
        for (const { queue, oldestWaitingSeconds } of queues) jobsOldest.set({ queue }, oldestWaitingSeconds)
      }),
  })
  const jobDuration = new Histogram({
    name: 'momentum_job_duration_seconds',
    help: 'Job runs, from start to end (a place-call run includes its wait for the instant and a line).',
    labelNames: ['job'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  })
  const jobFailures = new Counter({
    name: 'momentum_job_failures_total',
    help: 'Job runs that failed (each failed try; the last one included).',
    labelNames: ['job'] as const,
    registers,
  })
  const textsSent = new Counter({
    name: 'momentum_texts_sent_total',
    help: 'Outbound texts by what became of the send (sent: Twilio took it; logged: no Twilio; failed: refused; skipped: not sent).',
    labelNames: ['status'] as const,
    registers,
  })
  const textsRefused = new Counter({
    name: 'momentum_texts_refused_total',
    help: 'Texts Twilio refused or could not deliver, by its error code.',
    labelNames: ['code'] as const,
    registers,
  })
  const consentRevocations = new Counter({
    name: 'momentum_consent_revocations_total',
    help: 'Consents revoked, by channel and by what revoked it.',
    labelNames: ['channel', 'source'] as const,
    registers,
  })
  const emailsSent = new Counter({
    name: 'momentum_emails_sent_total',
    help: 'Emails handed to the mail server (or written to the log without one), by kind.',
    labelNames: ['kind'] as const,
    registers,
  })
  let voiceSnapshot = { sessions: 0, droppedToBrowser: 0, droppedToVapi: 0 }
  const voiceSessions = new Gauge({
    name: 'momentum_voice_sessions',
    help: 'Voice calls in the app open on this process.',
    registers,
    collect() {
      if (!sources.voice) return
      voiceSnapshot = sources.voice()
      voiceSessions.set(voiceSnapshot.sessions)
    },
  })
  const voiceDropped = new Counter({
    name: 'momentum_voice_frames_dropped_total',
    help: 'Audio frames the voice gateway dropped because the other side was behind, by direction.',
    labelNames: ['direction'] as const,
    registers,
    collect() {
      // The gateway's own running totals since start (the voice sessions gauge read them first).
      const snapshot = sources.voice ? sources.voice() : voiceSnapshot
      voiceDropped.reset()
      voiceDropped.inc({ direction: 'to_browser' }, snapshot.droppedToBrowser)
      voiceDropped.inc({ direction: 'to_vapi' }, snapshot.droppedToVapi)
    },
  })

  // Every series of a closed set starts at 0, so the first event after a start is an increase
  // Prometheus sees (a series born at 1 has no increase over its window).
  for (const kind of CALL_KINDS) {
    callsDue.inc({ kind }, 0)
    for (const outcome of DIAL_OUTCOMES) callsDialled.inc({ kind, outcome }, 0)
  }
  for (const reasonClass of ENDED_REASON_CLASSES) callsEnded.inc({ reason_class: reasonClass }, 0)
  for (const status of TEXT_SEND_STATUSES) textsSent.inc({ status }, 0)

  return {
    registry,
    /** The scrape: every metric in Prometheus's text format. */
    render: () => registry.metrics(),
    contentType: registry.contentType,
    /** The queues as their source has them (none before one is provided). */
    queues: () => (sources.queues ? sources.queues() : Promise.resolve([])),
    /** Hands the gauges their sources (the services, once built), and where a source's failure is logged. */
    provide(more: MetricSources, logTo?: Logger): void {
      Object.assign(sources, more)
      if (logTo) log = logTo
    },
    http(route: string, method: string, statusCode: number, seconds: number): void {
      httpDuration.observe({ route, method, status_class: `${Math.floor(statusCode / 100)}xx` }, seconds)
    },
    calls: {
      due: (kind: CountedCallKind) => callsDue.inc({ kind }),
      dialled: (kind: CountedCallKind, outcome: DialOutcome) => callsDialled.inc({ kind, outcome }),
      ended: (reasonClass: EndedReasonClass) => callsEnded.inc({ reason_class: reasonClass }),
      lateness: (seconds: number) => callLateness.observe(Math.max(0, seconds)),
    },
    webhooks: {
      /** A verified event; `eventAt` is the provider's time for it, when it gives one. */
      received(provider: WebhookProvider, type: string, eventAt: Date | null, now: Date): void {
        webhookEvents.inc({ provider, type: EVENT_TYPE.test(type) ? type : 'other' })
        if (eventAt) webhookLag.observe({ provider }, Math.max(0, (now.getTime() - eventAt.getTime()) / 1000))
      },
    },
    jobs: {
      ran(job: string, seconds: number, failed: boolean): void {
        jobDuration.observe({ job }, seconds)
        if (failed) jobFailures.inc({ job })
      },
    },
    texts: {
      sent: (status: (typeof TEXT_SEND_STATUSES)[number]) => textsSent.inc({ status }),
      refused: (code: number | null) => textsRefused.inc({ code: code !== null && KNOWN_TEXT_CODES.has(code) ? String(code) : 'other' }),
    },
    consent: {
      revoked: (channel: string, source: string) => consentRevocations.inc({ channel, source }),
    },
    emails: {
      sent: (kind: string) => emailsSent.inc({ kind }),
    },
  }
}
