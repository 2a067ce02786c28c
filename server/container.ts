/**
 * The composition root: every service and vendor adapter, built once from the configuration and
 * the shared connections. The server (buildApp decorates the result as `app.services`) and the
 * worker (worker/index.ts) both call createServices, so a job runs against the same services a
 * route does. Nothing else constructs a service.
 */
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Config } from './config'
import type { Db } from './db/client'
import { createMailer } from './integrations/mailer'
import { createStripeClient } from './integrations/stripe'
import { createTextSender } from './integrations/twilio'
import { VapiChatClient } from './integrations/vapi'
import { VapiCallsClient } from './integrations/vapi-calls'
import { createVapiApi } from './integrations/vapi-client'
import { VapiVoiceClient } from './integrations/vapi-voice'
import { realTimers, type Clock, type Timers } from './lib/clock'
import { memoryCounters, redisCounters } from './lib/counters'
import { withMemoryFallback } from './lib/memory-fallback'
import { sharedSlots } from './lib/slots'
import { throttledWarn } from './lib/throttled-warn'
import { createMetrics, type Metrics } from './observability/metrics'
import type { AppJobQueue } from './jobs/contracts'
import { createAccounts, type Accounts, type SessionsEnded } from '#server/services/accounts'
import { createAccountData } from '#server/services/account-data'
import { createAudit } from '#server/services/audit'
import { createBilling, type Billing } from '#server/services/billing'
import { callLines, createCalls, WEB_CALL_FIRST_MESSAGE, type Calls, type FinalCall } from '#server/services/calls'
import { createChat, defaultChatSettings } from '#server/services/chat'
import { createConsent, onConsentRevoked } from '#server/services/consent'
import { createCommitments } from '#server/services/commitments'
import { createCourses } from '#server/services/courses'
import { createGoals } from '#server/services/goals'
import { createGoalTemplates } from '#server/services/goal-templates'
import { createCallWatch } from '#server/services/call-watch'
import { memoryClusterBus, redisClusterBus, type ClusterBus } from '#server/services/cluster-bus'
import { createMaintenance } from '#server/services/maintenance'
import { createOps } from '#server/services/ops'
import { createProgress } from '#server/services/progress'
import { createReports } from '#server/services/reports'
import { createStaff } from '#server/services/staff'
import { createSupport } from '#server/services/support'
import { createCoachPhotos } from '#server/services/coach-photos'
import { createCoachSessions } from '#server/services/coach-sessions'
import { createCoach } from '#server/services/coach'
import { createTexts, type Texts } from '#server/services/texts'
import { createUsage, type Usage } from '#server/services/usage'
import { createVoice } from '#server/services/voice'
import { createMemory, type Memory } from '#server/services/memory'
import { loadCoachContext, toVariableValues } from '#server/services/chat'

type ServiceDeps = {
  db: Db
  /** Shared counters (per-account limits) live here when set; in memory otherwise. */
  redis: Redis | undefined
  clock: Clock
  /** The timers services arm (the voice gateway's caps); real ones by default, tests pass manual ones. */
  timers?: Timers
  log: Logger
  /** Prefix of every key the services keep in Redis (tests give each file its own). */
  redisPrefix?: string
  /**
   * Where services enqueue jobs of the registry: BullMQ with Redis, the in-process runner without.
   * Without one, a service that enqueues fails (callers that never enqueue may leave it out).
   */
  jobs?: AppJobQueue
  /** Where the services count what they do (the process's registry; one of their own when not given). */
  metrics?: Metrics
}

const noJobQueue: AppJobQueue = {
  enqueue: (name) => Promise.reject(new Error(`cannot enqueue "${name}": createServices was given no job queue`)),
}

/** The domains others call back into (wireDomains). */
type CallbackTargets = { accounts: Accounts; billing: Billing; calls: Calls; clusterBus: ClusterBus; memory: Memory; texts: Texts; usage: Usage }

/**
 * Every cross-domain callback (docs/decisions/021): how one domain calls into another through a
 * callback handed to it at construction, all in one place. A callback runs only after
 * createServices has returned (on a request, a webhook, a job), so it reaches its target through
 * `the()`, which holds every domain by then: the order the domains are built in never matters to
 * these, and the one cycle (a call that ended asks the texts for a recap; a STOP text revokes the
 * calls) needs no forward reference.
 */
function wireDomains(the: () => CallbackTargets, config: Config, log: Logger, textsLive: boolean) {
  return {
    calls: {
      // A voice call in the app: Vapi's duration raises its count; a completed call's recap, a missed call's text.
      onFinal: async (final: FinalCall) => {
        await the()
          .usage.callBilled(final.call)
          .catch((error: unknown) => log.warn({ err: error, callId: final.call.id }, 'usage: could not count the duration Vapi reported'))
        await the().texts.afterCall(final)
      },
    },
    texts: {
      // A missed-call text names the next call; a STOP revokes the calls (Vapi's unanswered ones are deleted).
      nextCall: (userId: string) => the().calls.next(userId),
      callsRevoked: (userId: string, cause: string) => the().calls.revoked(userId, cause),
    },
    callWatch: {
      // A watching dashboard: the calls live now, and ending one.
      current: (userId: string) => the().calls.liveNow(userId),
      end: (userId: string, callId: string) => the().calls.endLive(userId, callId),
    },
    voice: {
      // The voice gateway's sockets close when their session ends.
      sessionIsLive: (sessionId: string) => the().accounts.sessionIsLive(sessionId),
    },
    accounts: {
      // A sign-out, a password reset or change, or a session signed out from the account page closes
      // the voice sockets of the sessions it ended, on every server.
      onSessionsEnded: (ended: SessionsEnded) => void the().clusterBus.sessionsEnded(ended),
      // A new phone number's code goes out as a text (Twilio, or the log without it).
      // In production without Twilio no code could reach anyone (the log never holds one there).
      phoneCodes: {
        live: textsLive,
        canSend: textsLive || !config.production,
        send: (phone: string, code: string, purpose: 'change' | 'proof') => the().texts.sendCode(phone, code, purpose),
      },
      // A confirmed new email becomes the Stripe customer's too (receipts, the billing portal).
      onEmailChanged: (userId: string, email: string) => the().billing.customerEmailChanged(userId, email),
    },
    chat: {
      // Each chat turn is taken from the plan's budget, in the turn's transaction.
      turns: { take: (tx: Parameters<Usage['takeChatTurn']>[0], userId: string) => the().usage.takeChatTurn(tx, userId) },
      // Every turn reads the coach brief; a stored turn schedules the chat's extraction (docs/decisions/083).
      memory: {
        brief: async (userId: string, query: string) => (await the().memory.brief(userId, query))?.text ?? '',
        turnStored: (userId: string, conversationId: string, messageId: string) => the().memory.chatTurnStored(userId, conversationId, messageId),
      },
    },
    reports: {
      // The weekly report's link goes out through the texts outbox (its consent, hours and daily cap).
      texts: { request: (input: Parameters<Texts['sendText']>[0]) => the().texts.sendText(input) },
    },
  }
}

export type Services = ReturnType<typeof createServices>

export function createServices(config: Config, deps: ServiceDeps) {
  const { db, clock, log } = deps
  const prefix = deps.redisPrefix ?? 'mc:'
  const now = () => clock.now().getTime()
  const jobs = deps.jobs ?? noJobQueue
  const metrics = deps.metrics ?? createMetrics({ log, processMetrics: false })

  // Vendor adapters: SDK clients exist only when their keys are configured.
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log, logLinks: !config.production, onSent: metrics.emails.sent })
  const stripe = config.stripe ? createStripeClient(config.stripe) : undefined
  const chatSettings = defaultChatSettings()
  if (config.vapi && !config.vapi.assistantId) log.warn('VAPI_API_KEY is set without VAPI_ASSISTANT_ID: the chat uses the fallback coach')
  // One Vapi client (its key, VAPI_API_URL, its connections) for the chat, the calls and the voice calls, which all need the assistant.
  const vapi = config.vapi?.assistantId ? { api: createVapiApi({ apiKey: config.vapi.apiKey, apiUrl: config.vapi.apiUrl }), assistantId: config.vapi.assistantId } : undefined
  const vapiChat = vapi ? new VapiChatClient(vapi.api, vapi.assistantId, { timeoutMs: () => chatSettings.replyTimeoutMs, log }) : undefined
  // Calls: placed with the phone number; without it the client still reads, ends and deletes calls
  // (the sweep reconciles the voice calls made in the app).
  const vapiCalls = vapi ? new VapiCallsClient(vapi.api, { assistantId: vapi.assistantId, phoneNumberIds: config.vapi?.phoneNumberIds }) : undefined
  // Voice in the browser needs the key and the assistant (no phone number).
  const vapiVoice = vapi ? new VapiVoiceClient(vapi.api, { assistantId: vapi.assistantId }) : undefined
  // Texts: through Twilio with its keys, else written to the log (like mail without SMTP).
  const textSender = createTextSender(config.twilio, log, { logBodies: !config.production })
  const counters = deps.redis
    ? withMemoryFallback(
        redisCounters(deps.redis, `${prefix}ct:`, now),
        memoryCounters(now),
        throttledWarn(log, 'counters: Redis is unavailable, counting in memory until it is back', now),
      )
    : memoryCounters(now)

  // The /opt-in screen's open event streams, per person, counted on every server (ADR 063).
  const optInStreams = sharedSlots(
    deps.redis,
    `${prefix}optin:user:`,
    now,
    throttledWarn(log, 'opt-in streams: Redis is unavailable, counting them in memory until it is back', now),
  )

  // The coach thread's open event streams, per person, counted on every server (docs/decisions/079).
  const threadStreams = sharedSlots(
    deps.redis,
    `${prefix}thread:user:`,
    now,
    throttledWarn(log, 'thread streams: Redis is unavailable, counting them in memory until it is back', now),
  )

  // The cluster bus (ADR 068): Redis pub/sub shared by every server and worker when REDIS_URL is set,
  // so a webhook on one server reaches a dashboard on another and a sign-out every server's sockets;
  // in-process otherwise. Its channels keep their `live:` prefix (processes of an older release still
  // hear the newer ones during a deploy).
  const clusterBus = deps.redis
    ? redisClusterBus(deps.redis, {
        prefix: `${prefix}live:`,
        now,
        onError: throttledWarn(log, 'live calls: Redis is unavailable, live events reach this process only until it is back', now),
      })
    : memoryClusterBus(now)

  // The domains, each built once, in the order their values need (a domain handed another as a
  // value comes after it). The callbacks between them are wired in one place: wireDomains.
  const targets: { built?: CallbackTargets } = {}
  const wired = wireDomains(
    () => {
      if (!targets.built) throw new Error('a cross-domain callback ran while createServices was still building the services')
      return targets.built
    },
    config,
    log,
    textSender.live,
  )

  const billing = createBilling({
    db,
    clock,
    log,
    appUrl: config.appUrl,
    mailer,
    stripe: stripe && config.stripe ? { client: stripe, publishableKey: config.stripe.publishableKey, webhookSecret: config.stripe.webhookSecret } : undefined,
  })
  // The plan's in-app budget: the chat's turns, the voice gateway's minutes, the account page's figures.
  const usage = createUsage({ db, clock })
  const calls = createCalls({
    db,
    clock,
    log,
    vapi: vapiCalls,
    webhookAuth: config.vapi?.webhookSecret ? { mode: config.vapi.webhookAuth, secret: config.vapi.webhookSecret } : undefined,
    appUrl: config.appUrl,
    smsNumber: config.smsOptInNumber,
    jobs,
    // Vapi's lines, counted for every server and worker in Redis (in memory without it).
    lines: callLines(deps.redis, `${prefix}lines:`, config.callLines, clock, clusterBus),
    live: clusterBus,
    metrics,
    ...wired.calls,
  })
  const texts = createTexts({ db, clock, log, metrics, sender: textSender, smsNumber: config.smsOptInNumber, appUrl: config.appUrl, jobs, bus: clusterBus, ...wired.texts })
  const callWatch = createCallWatch({ bus: clusterBus, log, ...wired.callWatch })
  const chat = createChat({ db, clock, vapiChat, settings: chatSettings, ...wired.chat })
  const accounts = createAccounts({ db, clock, config, mailer, counters, log, jobs, ...wired.accounts })
  const voice = createVoice({
    clock,
    timers: deps.timers ?? realTimers,
    log,
    vapi: vapiVoice,
    webCalls: calls.webCalls,
    conversations: chat.voice,
    budget: usage,
    firstMessage: WEB_CALL_FIRST_MESSAGE,
    redis: deps.redis,
    redisPrefix: prefix,
    phoneCalls: callWatch,
    sessions: clusterBus,
    ...wired.voice,
  })
  const accountData = createAccountData({
    db,
    clock,
    log,
    jobs,
    accounts,
    billing,
    // What a deletion asks of the processors: Vapi's calls and chats, Twilio's text bodies.
    processors: {
      vapi:
        vapiCalls && vapiChat
          ? { deleteCall: (id) => vapiCalls.deleteCall(id), previousChatOf: (id) => vapiChat.previousChatOf(id), deleteChat: (id) => vapiChat.deleteChat(id) }
          : undefined,
      twilio: textSender.live ? textSender : undefined,
    },
  })
  const reports = createReports({ db, clock, log, mailer, appUrl: config.appUrl, jobs, ...wired.reports })
  // The coach's memory (docs/decisions/083): a chat's extraction turn goes through the chat's assistant with the chat's variables.
  const memory = createMemory({
    db,
    clock,
    jobs,
    vapiChat,
    variablesOf: async (userId, brief) => {
      const context = await loadCoachContext(db, userId, clock.now())
      return { ...(context ? toVariableValues(context) : {}), coachBrief: brief.text }
    },
  })
  targets.built = { accounts, billing, calls, clusterBus, memory, texts, usage }
  const commitmentsService = createCommitments({ db, clock })
  const support = createSupport({ db, clock, mailer, appUrl: config.appUrl, jobs })
  const coach = createCoach({
    db,
    clock,
    bus: clusterBus,
    mailer,
    appUrl: config.appUrl,
    texts,
    reads: {
      commitments: (userId) => commitmentsService.list(userId),
      reports: async (userId) => (await reports.list(userId)).reports,
      nextCall: (userId) => calls.next(userId),
      supportRequests: (userId) => support.summariesFor(userId),
    },
  })

  // The gauges of shared state, read when Prometheus scrapes (the queues are the job runner's: its owner provides them).
  const stopCountingRevocations = onConsentRevoked(metrics.consent.revoked)
  metrics.provide({
    lines: () => calls.lineState(),
    deadWebhookEvents: () => calls.parkedEvents(),
    voice: () => {
      const voiceNow = voice.metrics()
      return { sessions: voiceNow.connections, droppedToBrowser: voiceNow.droppedToBrowser, droppedToVapi: voiceNow.droppedToVapi }
    },
  })

  return {
    clock,
    /** What the process measures of itself (Prometheus's registry, served on METRICS_PORT). */
    metrics,
    accounts,
    /** The person's own data: "Export my data" and "Delete my account". */
    accountData,
    /** The audit log: who did what to whose account (docs/decisions/072); the account page's list. */
    audit: createAudit({ db }),
    /** Staff accounts and their roles (docs/decisions/072): the staff guard asks it. */
    staff: createStaff({ db, clock, mailer, appUrl: config.appUrl }),
    /** Priority support (docs/decisions/077): the Help page's tickets and the support inbox. */
    support,
    /** Elite's human coach (docs/decisions/078): assignments, coaches' profiles, the coach's workspace. */
    coach,
    /** Coaches' photos (docs/decisions/080): decoded and drawn again on upload, served under a versioned URL. */
    coachPhotos: createCoachPhotos({ db, clock }),
    /** Elite's 1-on-1 sessions (docs/decisions/082): the coach's hours, booking through holds, moves, cancels, invitations, reminders. */
    coachSessions: createCoachSessions({ db, clock, mailer, appUrl: config.appUrl, coach, texts, calls: { getSchedule: (userId) => calls.getSchedule(userId), updateSchedule: (userId, input) => calls.updateSchedule(userId, input) } }),
    billing,
    goals: createGoals({ db, clock }),
    /** Goal templates (docs/decisions/081): written by coaches and admins, versioned; Elite members start the intake from one. */
    goalTemplates: createGoalTemplates({ db, clock }),
    calls,
    /** The consent ledger as the person sees and changes it (calls: the schedule's switch). */
    consent: createConsent({ db, clock, smsNumber: config.smsOptInNumber }),
    /** Texts: the inbound webhook, the outbox (recaps, missed calls, the weekly report's link), the opt-in screen's signal. */
    texts,
    /** The plan's in-app budget: voice minutes and chat turns used and left (the account page). */
    usage,
    /** The /opt-in screen's event streams each person holds open, across every server (slots that lapse unless renewed). */
    optInStreams,
    /** The coach thread's event streams each person holds open, across every server. */
    threadStreams,
    /** The commitment loop: open commitments, the kept rate, marking one done. */
    commitments: commitmentsService,
    chat,
    /** The coach's memory (docs/decisions/083): facts and episodes from every channel, the coach brief, and `/memory`. */
    memory,
    courses: createCourses({ db, clock, log, billing, appUrl: config.appUrl }),
    maintenance: createMaintenance({ db, clock }),
    /** Premium and Elite's detailed analytics: the progress page's weekly series. */
    progress: createProgress({ db, clock }),
    /** Weekly progress reports: the email, and the link by text through the texts outbox (its consent, hours and daily cap). */
    reports,
    /** The operator's view: calls, lines, queues, parked webhook messages, stuck calls, refused texts. */
    ops: createOps({ db, clock, lines: () => calls.lineState(), queues: () => metrics.queues() }),
    /** The realtime voice gateway's sockets and calls (the /api/voice route hands it its sockets). */
    voice,
    /** The call watch: the sockets that watch the person's live phone calls (`watch-calls`) and ending one (`end-phone-call`). */
    callWatch,
    /** Releases what the adapters hold (the SMTP pool, Vapi's connections, the cluster bus's subscriber). The caller owns the database and Redis. */
    async close() {
      stopCountingRevocations()
      mailer.close()
      await clusterBus.close()
      await vapi?.api.close()
    },
  }
}
