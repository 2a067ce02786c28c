import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { z } from 'zod'

/**
 * The environment the product reads (every variable optional), read once and validated with zod.
 * Everything else receives the typed `Config` object and never reads process.env.
 */
const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value

const optionalString = z.preprocess(emptyToUndefined, z.string().optional())

const url = (protocols: string[], message: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((value) => {
        try {
          return protocols.includes(new URL(value).protocol)
        } catch {
          return false
        }
      }, message)
      .optional(),
  )

const port = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number between 0 and 65535')
    .transform(Number)
    .refine((n) => n >= 0 && n <= 65535, 'must be a whole number between 0 and 65535')
    .optional(),
)

const wholeNumber = (min: number, max: number) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
      .transform(Number)
      .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`)
      .optional(),
  )

/** A rate a second: a positive number (0.5: one every two seconds), at most 1000. */
const rate = () =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d{1,4}(\.\d{1,3})?$/, 'must be a number of calls a second, e.g. 1 or 0.5')
      .transform(Number)
      .refine((n) => n > 0 && n <= 1000, 'must be more than 0 and at most 1000')
      .optional(),
  )

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** OTEL_TRACES_SAMPLER's values (the OpenTelemetry SDK's, without the Jaeger remote ones). */
const TRACE_SAMPLERS = ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'] as const

/**
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: traces go out over OTLP/HTTP with JSON bodies (the installed
 * exporter), which every OTLP/HTTP receiver takes on the same port as protobuf; gRPC is another
 * port and transport, so asking for it is refused rather than sent where nothing listens.
 */
const otlpProtocol = z.preprocess(
  emptyToUndefined,
  z.enum(['http/json', 'http/protobuf'], { error: 'must be "http/json" (or "http/protobuf": either is sent as OTLP/HTTP JSON); gRPC is not available' }).optional(),
)

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true
  const [address, bits, extra] = entry.split('/')
  const family = isIP(address ?? '')
  if (family === 0 || extra !== undefined) return false
  if (bits === undefined) return true
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)
}

/** A hop count ("1": the nearest proxy), or a comma-separated list of addresses, CIDRs and range names. */
const trustProxy = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .transform((value) => value.trim())
    .refine(
      (value) => /^\d{1,2}$/.test(value) || value.split(',').every((entry) => isProxyEntry(entry.trim())),
      'must be a hop count (e.g. 1) or proxy addresses, CIDRs or loopback/linklocal/uniquelocal, comma-separated',
    )
    .transform((value): number | string[] =>
      /^\d+$/.test(value) ? Number(value) : value.split(',').map((entry) => entry.trim()),
    )
    .optional(),
)

/** Variables whose values are not secret: a config error may show what was given. Never any other. */
const SHOWABLE = new Set(['PORT', 'HOST', 'APP_URL', 'DATA_DIR', 'LOG_LEVEL', 'SMS_OPT_IN_NUMBER', 'TRUST_PROXY', 'MAIL_FROM', 'PAYMENT_MODE', 'NODE_ENV', 'VAPI_WEBHOOK_AUTH', 'WEB_CONCURRENCY', 'PHONE_CODES_DAILY_CAP', 'VAPI_MAX_CONCURRENT_CALLS', 'VAPI_LINES_RESERVED_FOR_APP', 'VAPI_DIALS_PER_SECOND', 'VAPI_DIALS_PER_SECOND_PER_NUMBER', 'METRICS_PORT', 'METRICS_HOST', 'OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG'])

export const EnvSchema = z.object({
  PORT: port,
  HOST: optionalString,
  APP_URL: url(['http:', 'https:'], 'must be an http(s) URL such as https://coach.example.com'),
  DATABASE_URL: url(['postgres:', 'postgresql:'], 'must be a postgres:// connection string'),
  DATA_DIR: optionalString,
  REDIS_URL: url(['redis:', 'rediss:'], 'must be a redis:// or rediss:// URL'),
  SMTP_URL: url(['smtp:', 'smtps:'], 'must be an smtp:// or smtps:// URL'),
  MAIL_FROM: optionalString,
  STRIPE_SECRET_KEY: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^(sk|rk)_(test|live)_\w+$/, 'must look like sk_test_… or sk_live_…').optional(),
  ),
  STRIPE_PUBLISHABLE_KEY: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^pk_(test|live)_\w+$/, 'must look like pk_test_… or pk_live_…').optional(),
  ),
  STRIPE_WEBHOOK_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^whsec_\w+$/, 'must look like whsec_…').optional(),
  ),
  STRIPE_API_URL: url(['http:', 'https:'], 'must be an http(s) URL'),
  /** `testing` allows payment testing mode when NODE_ENV=production (see loadConfig). */
  PAYMENT_MODE: z.preprocess(emptyToUndefined, z.enum(['testing'], { error: 'must be "testing" or unset' }).optional()),
  NODE_ENV: optionalString,
  VAPI_API_KEY: optionalString,
  VAPI_ASSISTANT_ID: optionalString,
  VAPI_PHONE_NUMBER_ID: optionalString,
  /** Caller numbers (Vapi phone number ids), comma-separated: each person is always called from the same one. */
  VAPI_PHONE_NUMBER_IDS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .transform((value) => value.split(',').map((id) => id.trim()).filter((id) => id !== ''))
      .refine((ids) => ids.length > 0 && ids.length <= 1000 && ids.every((id) => /^[\w.-]{1,200}$/.test(id)), 'must be phone number ids separated by commas')
      .optional(),
  ),
  /** The account's lines: calls Vapi runs at once (phone calls and voice calls in the app). */
  VAPI_MAX_CONCURRENT_CALLS: wholeNumber(1, 100_000),
  /** Lines only a voice call in the app may take. */
  VAPI_LINES_RESERVED_FOR_APP: wholeNumber(0, 100_000),
  /** New phone calls a second, fleet-wide (the carrier's calls-per-second). */
  VAPI_DIALS_PER_SECOND: rate(),
  /** New phone calls a second from one caller number. */
  VAPI_DIALS_PER_SECOND_PER_NUMBER: rate(),
  /** At least 32 characters: it is the whole of the webhook's authentication in secret mode. */
  VAPI_WEBHOOK_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(32, 'must be at least 32 characters (a long random string, e.g. `openssl rand -hex 32`)').optional(),
  ),
  VAPI_API_URL: url(['http:', 'https:'], 'must be an http(s) URL'),
  /** How POST /api/webhooks/vapi verifies Vapi: the X-Vapi-Secret header (default) or an HMAC signature. */
  VAPI_WEBHOOK_AUTH: z.preprocess(emptyToUndefined, z.enum(['secret', 'hmac'], { error: 'must be "secret" or "hmac"' }).optional()),
  SMS_OPT_IN_NUMBER: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164, e.g. +15551234567').optional(),
  ),
  TWILIO_ACCOUNT_SID: z.preprocess(emptyToUndefined, z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must look like AC followed by 32 hex digits').optional()),
  TWILIO_AUTH_TOKEN: z.preprocess(emptyToUndefined, z.string().regex(/^\S{16,}$/, 'must be the account auth token (at least 16 characters, no spaces)').optional()),
  TWILIO_API_URL: url(['http:', 'https:'], 'must be an http(s) URL'),
  /** Code texts (a number proven, a new number confirmed) the whole service sends in a day at most. */
  PHONE_CODES_DAILY_CAP: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+$/, 'must be a whole number from 1 to 1000000')
      .transform(Number)
      .refine((n) => n >= 1 && n <= 1_000_000, 'must be a whole number from 1 to 1000000')
      .optional(),
  ),
  TRUST_PROXY: trustProxy,
  /** Where Prometheus scrapes this process's metrics (0: not served). Never the public port. */
  METRICS_PORT: port,
  /** The address the metrics listen on (127.0.0.1 unless a scraper elsewhere must reach them). */
  METRICS_HOST: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((value) => isIP(value) !== 0 || value === 'localhost', 'must be an IP address (e.g. 127.0.0.1, or 0.0.0.0 inside a container network)')
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(LOG_LEVELS).optional()),
  /** Server processes sharing the port (server/cluster.ts); more than 1 needs DATABASE_URL and REDIS_URL. */
  WEB_CONCURRENCY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+$/, 'must be a whole number from 1 to 64')
      .transform(Number)
      .refine((n) => n >= 1 && n <= 64, 'must be a whole number from 1 to 64')
      .optional(),
  ),
  // Traces (docs/decisions/073): the OpenTelemetry SDK reads these and the rest of its standard
  // variables itself (headers, timeouts, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*);
  // the ones that decide whether and what it sends are checked here, once.
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:'], 'must be an http(s) URL of an OTLP/HTTP receiver, e.g. http://collector:4318'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:'], 'must be an http(s) URL of an OTLP/HTTP traces receiver, e.g. http://collector:4318/v1/traces'),
  OTEL_SDK_DISABLED: z.preprocess(emptyToUndefined, z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).optional()),
  OTEL_TRACES_EXPORTER: z.preprocess(emptyToUndefined, z.enum(['otlp', 'none'], { error: 'must be "otlp" or "none" (traces are sent over OTLP/HTTP only)' }).optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_TRACES_SAMPLER: z.preprocess(emptyToUndefined, z.enum(TRACE_SAMPLERS, { error: `must be one of ${TRACE_SAMPLERS.join(', ')}` }).optional()),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/, 'must be a ratio from 0 to 1, e.g. 0.1')
      .transform(Number)
      .optional(),
  ),
})

/** Code texts a day for the whole service when PHONE_CODES_DAILY_CAP is not set (docs/decisions/060). */
const DEFAULT_PHONE_CODES_DAILY_CAP = 1000

export type Config = {
  port: number
  host: string
  appUrl: string
  /** The origin of appUrl, compared with Origin / Sec-Fetch-Site on state-changing requests. */
  appOrigin: string
  secureCookies: boolean
  databaseUrl: string | undefined
  dataDir: string
  redisUrl: string | undefined
  smtpUrl: string | undefined
  mailFrom: string
  stripe:
    | { secretKey: string; publishableKey: string; webhookSecret: string; apiUrl: string | undefined }
    | undefined
  vapi:
    | {
        apiKey: string
        assistantId: string | undefined
        /** VAPI_PHONE_NUMBER_IDS, or VAPI_PHONE_NUMBER_ID alone: the caller numbers (none: phone calls are not placed). */
        phoneNumberIds: string[]
        webhookSecret: string | undefined
        /**
         * How Vapi authenticates its webhooks (VAPI_WEBHOOK_AUTH): 'secret' sends VAPI_WEBHOOK_SECRET
         * in the X-Vapi-Secret header; 'hmac' signs `${x-timestamp}.${rawBody}` with it (x-signature).
         */
        webhookAuth: 'secret' | 'hmac'
        apiUrl: string | undefined
      }
    | undefined
  smsOptInNumber: string
  /**
   * Twilio (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN, all or none): texts are sent from
   * smsOptInNumber and inbound texts are verified with the token. Undefined: each text is written
   * to the log, and the inbound webhook refuses every request (nothing can be verified).
   */
  twilio: { accountSid: string; authToken: string; apiUrl: string | undefined } | undefined
  /** Vapi's lines and the pace of new phone calls (docs/decisions/069). */
  callLines: { maxConcurrentCalls: number; reservedForApp: number; dialsPerSecond: number; dialsPerSecondPerNumber: number }
  /** PHONE_CODES_DAILY_CAP: code texts the whole service sends in a day at most (docs/decisions/060). */
  phoneCodesDailyCap: number
  /** Whose X-Forwarded-For is believed: a hop count, or proxy addresses (Fastify's trustProxy). */
  trustProxy: number | string[]
  logLevel: (typeof LOG_LEVELS)[number]
  /** NODE_ENV=production: real mail is required, and nothing logs an emailed link. */
  production: boolean
  /** WEB_CONCURRENCY: server processes sharing the port under one supervisor (1: this process serves). */
  serverProcesses: number
  /**
   * Prometheus metrics (METRICS_PORT, METRICS_HOST): `port` null when METRICS_PORT is not set (the
   * server then tries 9464 and the worker 9465, and a port in use is logged, not fatal), 0 when
   * switched off.
   */
  metrics: { port: number | null; host: string }
  /** Traces (docs/decisions/073): on when an OTLP endpoint is set (and the SDK is not disabled); undefined: off. */
  tracing: TracingConfig | undefined
}

export type TraceSampler = (typeof TRACE_SAMPLERS)[number]
/** OTEL_TRACES_SAMPLER (default parentbased_always_on) and its ratio, OTEL_TRACES_SAMPLER_ARG (default 1). */
export type TracingConfig = { sampler: TraceSampler; ratio: number }

export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`)
    this.variable = variable
  }
}

const inContainer = () => process.env.container !== undefined || process.env.KUBERNETES_SERVICE_HOST !== undefined

/** Parses the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(Object.keys(EnvSchema.shape).map((key) => [key, source[key]]))
  const parsed = EnvSchema.safeParse(picked)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const variable = String(issue.path[0] ?? 'environment')
    const shown = picked[variable] === undefined || !SHOWABLE.has(variable) ? '' : ` (got "${String(picked[variable]).slice(0, 60)}")`
    throw new ConfigError(variable, `${issue.message}${shown}`)
  }
  const env = parsed.data

  const port = env.PORT ?? 3000
  const appUrl = (env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, '')
  const appOrigin = new URL(appUrl).origin

  const stripeKeys = [env.STRIPE_SECRET_KEY, env.STRIPE_PUBLISHABLE_KEY, env.STRIPE_WEBHOOK_SECRET]
  const stripeSet = stripeKeys.filter(Boolean).length
  if (stripeSet > 0 && stripeSet < 3) {
    const missing = (['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET'] as const).find(
      (name) => !env[name],
    )!
    throw new ConfigError(missing, 'is required when the other Stripe keys are set')
  }
  // Without Stripe keys anyone gets any plan free (testing mode): production must say it means that.
  const production = env.NODE_ENV === 'production'
  const phoneNumberIds = env.VAPI_PHONE_NUMBER_IDS ?? (env.VAPI_PHONE_NUMBER_ID ? [env.VAPI_PHONE_NUMBER_ID] : [])
  const dials = env.VAPI_API_KEY !== undefined && phoneNumberIds.length > 0
  if (dials && !env.VAPI_WEBHOOK_SECRET) {
    throw new ConfigError('VAPI_WEBHOOK_SECRET', 'is required when VAPI_PHONE_NUMBER_ID or VAPI_PHONE_NUMBER_IDS is set (daily calls report back through the authenticated webhook)')
  }
  if (stripeSet === 0 && production && env.PAYMENT_MODE !== 'testing') {
    throw new ConfigError(
      'PAYMENT_MODE',
      'must be "testing" to run in production without Stripe keys (anyone could then get any plan free): set STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENT_MODE=testing',
    )
  }

  if (Boolean(env.TWILIO_ACCOUNT_SID) !== Boolean(env.TWILIO_AUTH_TOKEN)) {
    const missing = env.TWILIO_ACCOUNT_SID ? 'TWILIO_AUTH_TOKEN' : 'TWILIO_ACCOUNT_SID'
    throw new ConfigError(missing, 'is required when the other Twilio key is set')
  }
  if (env.TWILIO_ACCOUNT_SID && !env.SMS_OPT_IN_NUMBER) {
    throw new ConfigError('SMS_OPT_IN_NUMBER', 'is required when Twilio is configured (texts are sent from it)')
  }
  // A number is called only once proven by a text from it or a code texted to it (docs/decisions/060):
  // in production, without Twilio, no number could ever be proven (no code is logged there).
  if (production && dials && !env.TWILIO_ACCOUNT_SID) {
    throw new ConfigError(
      'TWILIO_ACCOUNT_SID',
      'is required when NODE_ENV=production and VAPI_PHONE_NUMBER_ID is set: a number is called only once proven by a text, and without Twilio none can be',
    )
  }

  const serverProcesses = env.WEB_CONCURRENCY ?? 1
  if (serverProcesses > 1 && (!env.DATABASE_URL || !env.REDIS_URL)) {
    throw new ConfigError(
      'WEB_CONCURRENCY',
      `above 1 needs DATABASE_URL and REDIS_URL: the embedded database and the in-process scheduler and live channel belong to one process (got "${serverProcesses}")`,
    )
  }

  if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT: the metrics are never served on the public port (got "${env.METRICS_PORT}")`)
  }

  if (production && !env.SMTP_URL) {
    throw new ConfigError('SMTP_URL', 'is required when NODE_ENV=production (without it, mail would only be written to the log)')
  }

  const tracing = tracingConfig(env)

  return {
    port,
    host: env.HOST ?? (inContainer() ? '0.0.0.0' : '127.0.0.1'),
    appUrl,
    appOrigin,
    secureCookies: appUrl.startsWith('https:'),
    databaseUrl: env.DATABASE_URL,
    dataDir: resolve(env.DATA_DIR ?? './.data'),
    redisUrl: env.REDIS_URL,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM ?? 'Momentum Coach <no-reply@momentum.coach>',
    stripe:
      stripeSet === 3
        ? {
            secretKey: env.STRIPE_SECRET_KEY!,
            publishableKey: env.STRIPE_PUBLISHABLE_KEY!,
            webhookSecret: env.STRIPE_WEBHOOK_SECRET!,
            apiUrl: env.STRIPE_API_URL,
          }
        : undefined,
    vapi: env.VAPI_API_KEY
      ? {
          apiKey: env.VAPI_API_KEY,
          assistantId: env.VAPI_ASSISTANT_ID,
          phoneNumberIds,
          webhookSecret: env.VAPI_WEBHOOK_SECRET,
          webhookAuth: env.VAPI_WEBHOOK_AUTH ?? 'secret',
          apiUrl: env.VAPI_API_URL,
        }
      : undefined,
    smsOptInNumber: env.SMS_OPT_IN_NUMBER ?? '+15555550123',
    twilio: env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN ? { accountSid: env.TWILIO_ACCOUNT_SID, authToken: env.TWILIO_AUTH_TOKEN, apiUrl: env.TWILIO_API_URL } : undefined,
    callLines: {
      maxConcurrentCalls: env.VAPI_MAX_CONCURRENT_CALLS ?? 10,
      reservedForApp: env.VAPI_LINES_RESERVED_FOR_APP ?? 2,
      dialsPerSecond: env.VAPI_DIALS_PER_SECOND ?? 1,
      dialsPerSecondPerNumber: env.VAPI_DIALS_PER_SECOND_PER_NUMBER ?? env.VAPI_DIALS_PER_SECOND ?? 1,
    },
    phoneCodesDailyCap: env.PHONE_CODES_DAILY_CAP ?? DEFAULT_PHONE_CODES_DAILY_CAP,
    trustProxy: env.TRUST_PROXY ?? ['loopback'],
    logLevel: env.LOG_LEVEL ?? 'info',
    production,
    serverProcesses,
    metrics: { port: env.METRICS_PORT ?? null, host: env.METRICS_HOST ?? '127.0.0.1' },
    tracing,
  }
}

/** Traces are sent when an OTLP endpoint is set, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. */
function tracingConfig(env: z.output<typeof EnvSchema>): TracingConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined
  const sampler = env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on'
  if (env.OTEL_TRACES_SAMPLER_ARG !== undefined && !sampler.endsWith('traceidratio')) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `is the ratio of a traceidratio sampler; OTEL_TRACES_SAMPLER is "${sampler}"`)
  }
  return { sampler, ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 }
}
