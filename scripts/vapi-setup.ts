/**
 * `npm run vapi:setup`: makes the Vapi account named by VAPI_API_KEY ready for the daily coaching
 * calls, idempotently (each step reads the account first; a second run changes nothing):
 * - the structured output `coaching_call_report` (areas discussed, summary, mood, energy,
 *   commitments), found by name, its description and schema kept as written;
 * - a webhook credential, so Vapi authenticates to `APP_URL/api/webhooks/vapi`: a bearer
 *   credential that sends `X-Vapi-Secret: <VAPI_WEBHOOK_SECRET>` (VAPI_WEBHOOK_AUTH=secret, the
 *   default) or an HMAC credential (VAPI_WEBHOOK_AUTH=hmac). Vapi never shows a credential's
 *   secret again, so its name carries a fingerprint of the mode and secret: a new secret gets a
 *   new credential, the same secret finds the existing one;
 * - the coaching assistant (`Momentum Coach daily coach`), found by name: its prompt, first
 *   message, voicemail handling, webhook server, server messages and structured output are
 *   written from server/services/calls/assistant.ts; only fields that differ are updated.
 * Then it prints the ids to put in the environment. Reads VAPI_API_KEY, VAPI_WEBHOOK_SECRET,
 * VAPI_WEBHOOK_AUTH, APP_URL (and VAPI_API_URL, for a Vapi-compatible test server).
 */
import { pathToFileURL } from 'node:url'
import { VapiError, type Vapi, type VapiClient } from '@vapi-ai/server-sdk'
import { VAPI_SECRET_HEADER, VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER, VAPI_WEBHOOK_PATH } from '#common/webhooks'
import { EnvSchema } from '#server/config'
import { createVapiApi, messageOf } from '#server/integrations/vapi-client'
import {
  authenticationPlan,
  CALL_REPORT_DESCRIPTION,
  CALL_REPORT_OUTPUT,
  CALL_REPORT_SCHEMA,
  COACH_ASSISTANT_NAME,
  coachAssistant,
  CREDENTIAL_PREFIX,
  credentialName,
  type WebhookAuthMode,
} from '#server/services/calls'

// The credential's name and plan are the calls' too (they find it by its name): defined with them.
export { authenticationPlan, CREDENTIAL_PREFIX, credentialName } from '#server/services/calls'

export type WebhookAuth = WebhookAuthMode

export type VapiSetupOptions = {
  /** The app's public base URL (APP_URL), without a trailing slash. */
  appUrl: string
  webhookSecret: string
  webhookAuth: WebhookAuth
  /** VAPI_ASSISTANT_ID as configured: preferred when several assistants carry the coach's name. */
  assistantId?: string | undefined
}

type Step = { id: string; created: boolean; updated: boolean }

export type VapiSetupResult = {
  webhookUrl: string
  structuredOutput: Step
  credential: Step & { name: string; unused: Array<{ id: string; name: string }> }
  /** `changed`: the top-level fields an update wrote. */
  assistant: Step & { changed: string[] }
  phoneNumbers: Array<{ id: string; number: string | undefined; name: string | undefined }>
}

/** The secret's field in each plan: never shown back, so never compared. */
const SECRET_FIELDS = new Set(['token', 'secretKey', 'clientSecret'])

type Credential = { id: string; name?: string; provider?: string; createdAt?: string; authenticationPlan?: Record<string, unknown> }

/**
 * A request to a route the SDK does not model (`/credential`), through its passthrough: same
 * base URL and Bearer key. Throws a VapiError on a non-2xx answer.
 */
async function vapiRequest<T>(client: VapiClient, method: string, path: string, body?: unknown): Promise<T> {
  const response = await client.fetch(
    path,
    { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
    { maxRetries: 0 },
  )
  const raw = await response.text()
  let data: unknown = raw
  try {
    data = raw ? JSON.parse(raw) : undefined
  } catch {
    // not JSON: keep the text
  }
  if (!response.ok) throw new VapiError({ message: `${method} ${path}: ${messageOf(data)}`, statusCode: response.status, body: data })
  return data as T
}

/** A list answer: an array, or a page `{ results }`. */
const itemsOf = <T>(data: unknown): T[] =>
  Array.isArray(data) ? (data as T[]) : data && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results) ? ((data as { results: T[] }).results) : []

/**
 * Whether `actual` already holds everything `wanted` says: objects field by field (fields Vapi
 * adds on its side are ignored), arrays element by element with the same length, the rest equal.
 */
export function holds(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return Array.isArray(actual) && actual.length === wanted.length && wanted.every((item, index) => holds(actual[index], item))
  }
  if (wanted !== null && typeof wanted === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    return Object.entries(wanted).every(([key, value]) => value === undefined || holds((actual as Record<string, unknown>)[key], value))
  }
  return Object.is(actual, wanted)
}

/** Exactly equal JSON (key order aside): for a schema, where a leftover property matters. */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => [k, canonical(v)]))
        : value
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
}

const oldestFirst = <T extends { createdAt?: string }>(items: T[]) => [...items].sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''))

async function ensureStructuredOutput(client: VapiClient, log: (line: string) => void): Promise<Step> {
  const page = await client.structuredOutputs.structuredOutputControllerFindAll({ name: CALL_REPORT_OUTPUT, limit: 100 }, { maxRetries: 0 })
  const named = oldestFirst(itemsOf<Vapi.StructuredOutput>(page).filter((output) => output.name === CALL_REPORT_OUTPUT))
  const schema = CALL_REPORT_SCHEMA as unknown as Vapi.JsonSchema
  const current = named[0]
  if (named.length > 1) log(`Structured output ${CALL_REPORT_OUTPUT}: ${named.length} carry this name; using the oldest, ${current!.id}`)
  if (!current) {
    const created = await client.structuredOutputs.structuredOutputControllerCreate(
      { name: CALL_REPORT_OUTPUT, type: 'ai', description: CALL_REPORT_DESCRIPTION, schema },
      { maxRetries: 0 },
    )
    log(`Structured output ${CALL_REPORT_OUTPUT}: created ${created.id}`)
    return { id: created.id, created: true, updated: false }
  }
  const same = current.description === CALL_REPORT_DESCRIPTION && sameJson(current.schema, schema) && (current.type ?? 'ai') === 'ai'
  if (!same) {
    await client.structuredOutputs.structuredOutputControllerUpdate(
      { id: current.id, schemaOverride: current.schema?.type === schema.type ? 'false' : 'true', type: 'ai', description: CALL_REPORT_DESCRIPTION, schema },
      { maxRetries: 0 },
    )
  }
  log(`Structured output ${CALL_REPORT_OUTPUT}: ${current.id} ${same ? '(already set up)' : 'updated with the current schema'}`)
  return { id: current.id, created: false, updated: !same }
}

async function ensureCredential(client: VapiClient, options: VapiSetupOptions, log: (line: string) => void): Promise<VapiSetupResult['credential']> {
  const name = credentialName(options.webhookAuth, options.webhookSecret)
  const plan = authenticationPlan(options.webhookAuth, options.webhookSecret)
  // No query string: the SDK's passthrough would encode the `?` into the path.
  const ours = itemsOf<Credential>(await vapiRequest(client, 'GET', '/credential')).filter(
    (credential) => typeof credential.name === 'string' && credential.name.startsWith(`${CREDENTIAL_PREFIX} `),
  )
  const unused = ours.filter((credential) => credential.name !== name).map((credential) => ({ id: credential.id, name: credential.name! }))
  const current = oldestFirst(ours.filter((credential) => credential.name === name && (credential.provider ?? 'webhook') === 'webhook'))[0]
  if (!current) {
    const created = await vapiRequest<Credential>(client, 'POST', '/credential', { provider: 'webhook', name, authenticationPlan: plan })
    log(`Webhook credential "${name}": created ${created.id}`)
    return { id: created.id, name, created: true, updated: false, unused }
  }
  // The secret cannot be read back (the name's fingerprint stands for it); the rest of the plan can.
  const visible = Object.fromEntries(Object.entries(plan).filter(([key]) => !SECRET_FIELDS.has(key)))
  const same = current.authenticationPlan === undefined || holds(current.authenticationPlan, visible)
  if (!same) await vapiRequest(client, 'PATCH', `/credential/${encodeURIComponent(current.id)}`, { authenticationPlan: plan })
  log(`Webhook credential "${name}": ${current.id} ${same ? '(already set up)' : 'updated'}`)
  return { id: current.id, name, created: false, updated: !same, unused }
}

async function ensureAssistant(
  client: VapiClient,
  options: VapiSetupOptions,
  wanted: Vapi.CreateAssistantDto,
  log: (line: string) => void,
): Promise<VapiSetupResult['assistant']> {
  const named = oldestFirst((await client.assistants.list({ limit: 1000 }, { maxRetries: 0 })).filter((assistant) => assistant.name === COACH_ASSISTANT_NAME))
  const current = named.find((assistant) => assistant.id === options.assistantId) ?? named[0]
  if (named.length > 1) log(`Assistant "${COACH_ASSISTANT_NAME}": ${named.length} carry this name; using ${current!.id}`)
  if (!current) {
    const created = await client.assistants.create(wanted, { maxRetries: 0 })
    log(`Assistant "${COACH_ASSISTANT_NAME}": created ${created.id}`)
    return { id: created.id, created: true, updated: false, changed: [] }
  }
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([key, value]) => value !== undefined && !holds((current as unknown as Record<string, unknown>)[key], value)),
  ) as Partial<Vapi.CreateAssistantDto>
  const changed = Object.keys(changes)
  if (changed.length > 0) await client.assistants.update({ id: current.id, ...changes } as Vapi.UpdateAssistantDto, { maxRetries: 0 })
  log(`Assistant "${COACH_ASSISTANT_NAME}": ${current.id} ${changed.length === 0 ? '(already set up)' : `updated (${changed.join(', ')})`}`)
  return { id: current.id, created: false, updated: changed.length > 0, changed }
}

/** Creates or updates the structured output, the webhook credential and the assistant, in that order. */
export async function setupVapi(client: VapiClient, options: VapiSetupOptions, log: (line: string) => void = () => {}): Promise<VapiSetupResult> {
  const webhookUrl = `${options.appUrl.replace(/\/+$/, '')}${VAPI_WEBHOOK_PATH}`
  const structuredOutput = await ensureStructuredOutput(client, log)
  const credential = await ensureCredential(client, options, log)
  const wanted = coachAssistant({ server: { url: webhookUrl, credentialId: credential.id }, structuredOutputId: structuredOutput.id })
  const assistant = await ensureAssistant(client, options, wanted, log)
  const phones = await client.phoneNumbers.list({ limit: 100 }, { maxRetries: 0 })
  const phoneNumbers = phones.map((phone) => {
    const fields = phone as { id: string; number?: string; sipUri?: string; name?: string }
    return { id: fields.id, number: fields.number ?? fields.sipUri, name: fields.name }
  })
  return { webhookUrl, structuredOutput, credential, assistant, phoneNumbers }
}

/** What to tell the operator after a run: the environment to set and what to check. */
export function report(result: VapiSetupResult, options: VapiSetupOptions & { phoneNumberId?: string | undefined }): string[] {
  const lines = ['', 'Put these in the environment (.env, or the deployment):', `VAPI_ASSISTANT_ID=${result.assistant.id}`]
  const configured = result.phoneNumbers.find((phone) => phone.id === options.phoneNumberId)
  if (configured) lines.push(`VAPI_PHONE_NUMBER_ID=${configured.id}   (already set: ${configured.number ?? configured.name ?? 'no number'})`)
  else if (result.phoneNumbers.length === 1) lines.push(`VAPI_PHONE_NUMBER_ID=${result.phoneNumbers[0]!.id}   (${result.phoneNumbers[0]!.number ?? 'the account\'s only number'})`)
  lines.push(`VAPI_WEBHOOK_AUTH=${options.webhookAuth}`)
  if (!configured && result.phoneNumbers.length === 0) {
    lines.push('VAPI_PHONE_NUMBER_ID: the account has no phone number yet. Import one in the Vapi dashboard (Phone Numbers: a Twilio, Vonage or Telnyx number, or a free Vapi number for testing, which cannot call abroad and has a daily cap), then run this again to print its id.')
  } else if (!configured && result.phoneNumbers.length > 1) {
    lines.push('VAPI_PHONE_NUMBER_ID: the account has several numbers; set the one the calls should come from:')
    for (const phone of result.phoneNumbers) lines.push(`  ${phone.id}  ${phone.number ?? ''}${phone.name && phone.name !== phone.number ? `  (${phone.name})` : ''}`)
  }
  if (options.assistantId && options.assistantId !== result.assistant.id) {
    lines.push(`Note: VAPI_ASSISTANT_ID is set to ${options.assistantId}, not this assistant: set it to the id above (the calls, the chat and voice all use VAPI_ASSISTANT_ID).`)
  }
  lines.push('')
  lines.push(
    `Webhook: ${result.webhookUrl} (status-update and end-of-call-report), authenticated by ${
      options.webhookAuth === 'hmac' ? `an HMAC-SHA256 signature (${VAPI_SIGNATURE_HEADER} over "${VAPI_TIMESTAMP_HEADER}.body")` : `the ${VAPI_SECRET_HEADER} header`
    } with VAPI_WEBHOOK_SECRET; the server must run with the same VAPI_WEBHOOK_SECRET and VAPI_WEBHOOK_AUTH.`,
  )
  const host = new URL(result.webhookUrl).hostname
  if (['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0'].includes(host) || host.endsWith('.local')) {
    lines.push(`Warning: Vapi cannot reach ${host}. Set APP_URL to the public https URL (or a tunnel to this machine) and run this again.`)
  }
  if (result.credential.unused.length > 0) {
    lines.push(`No longer used (an older secret or mode): ${result.credential.unused.map((credential) => `${credential.name} (${credential.id})`).join(', ')}. Delete them in the Vapi dashboard once no call in progress needs them.`)
  }
  return lines
}

async function main() {
  const parsed = EnvSchema.pick({
    VAPI_API_KEY: true,
    VAPI_API_URL: true,
    VAPI_WEBHOOK_SECRET: true,
    VAPI_WEBHOOK_AUTH: true,
    VAPI_ASSISTANT_ID: true,
    VAPI_PHONE_NUMBER_ID: true,
    APP_URL: true,
    PORT: true,
  }).safeParse({
    VAPI_API_KEY: process.env.VAPI_API_KEY,
    VAPI_API_URL: process.env.VAPI_API_URL,
    VAPI_WEBHOOK_SECRET: process.env.VAPI_WEBHOOK_SECRET,
    VAPI_WEBHOOK_AUTH: process.env.VAPI_WEBHOOK_AUTH,
    VAPI_ASSISTANT_ID: process.env.VAPI_ASSISTANT_ID,
    VAPI_PHONE_NUMBER_ID: process.env.VAPI_PHONE_NUMBER_ID,
    APP_URL: process.env.APP_URL,
    PORT: process.env.PORT,
  })
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    console.error(`vapi:setup: ${String(issue.path[0])} ${issue.message}`)
    process.exit(1)
  }
  const env = parsed.data
  if (!env.VAPI_API_KEY) {
    console.error('vapi:setup: VAPI_API_KEY is not set (the private API key from the Vapi dashboard).')
    process.exit(1)
  }
  if (!env.VAPI_WEBHOOK_SECRET) {
    console.error('vapi:setup: VAPI_WEBHOOK_SECRET is not set (a long random string, e.g. `openssl rand -hex 32`; the server verifies webhooks with it).')
    process.exit(1)
  }
  const options: VapiSetupOptions = {
    appUrl: (env.APP_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/+$/, ''),
    webhookSecret: env.VAPI_WEBHOOK_SECRET,
    webhookAuth: env.VAPI_WEBHOOK_AUTH ?? 'secret',
    assistantId: env.VAPI_ASSISTANT_ID,
  }
  const api = createVapiApi({ apiKey: env.VAPI_API_KEY, apiUrl: env.VAPI_API_URL }, { timeoutInSeconds: 30 })
  try {
    const result = await setupVapi(await api.sdk(), options, (line) => console.log(line))
    for (const line of report(result, { ...options, phoneNumberId: env.VAPI_PHONE_NUMBER_ID })) console.log(line)
  } catch (error) {
    const status = error instanceof VapiError && error.statusCode !== undefined ? ` (HTTP ${error.statusCode})` : ''
    const detail = error instanceof VapiError && error.body !== undefined ? messageOf(error.body) : error instanceof Error ? error.message : String(error)
    console.error(`vapi:setup failed${status}: ${detail}`)
    process.exit(1)
  } finally {
    await api.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
