/**
 * The coaching assistant that places the daily calls, as `npm run vapi:setup` saves it in Vapi,
 * and the call report it returns. One definition shared by the setup script (which writes it),
 * the dialer (which fills CALL_VARIABLES on every call) and the webhook processing (which reads
 * the report with CallReportResult).
 *
 * - The prompt is a LiquidJS template: Vapi fills `{{name}}` from the call's
 *   `assistantOverrides.variableValues`; a variable the call leaves out renders empty.
 * - The call report is a Vapi structured output named CALL_REPORT_OUTPUT, attached through
 *   `artifactPlan.structuredOutputIds`; it arrives in the end-of-call report as
 *   `artifact.structuredOutputs[<output id>] = { name, result }` and is found by its name.
 */
import { createHash } from 'node:crypto'
import type { Vapi } from '@vapi-ai/server-sdk'
import { z } from 'zod'
import { OPEN_COMMITMENTS_IN_CALL } from '#common/commitments'
import { LIFE_AREAS, type LifeArea } from '#common/domain'
import { LIFE_AREA_TITLES } from '#common/life-areas'
import { storableText } from '#common/text'
import { VAPI_SECRET_HEADER, VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER } from '#common/webhooks'
import type { ReviewedCommitment } from '#server/services/commitments'
import { ExtractedFacts, FACTS_SCHEMA_PROPERTIES } from '#server/services/memory'

/** The assistant's name in Vapi: setup finds it by this name (Vapi allows 40 characters). */
export const COACH_ASSISTANT_NAME = 'Momentum Coach daily coach'

/** The values every call sends in `assistantOverrides.variableValues` (strings; '' when unknown). */
export const CALL_VARIABLES = [
  'firstName',
  /** The goals across the life areas, in a sentence or two. */
  'goalsSummary',
  /** The three lowest-scored life areas, comma-separated labels. */
  'focusAreas',
  'goal90Days',
  'obstacles',
  /** The previous call's summary; '' when there was none. */
  'previousCallSummary',
  /**
   * Elite: the last 1-on-1 with their human coach as the coach wrote it up (when, the summary, the
   * commitments agreed); '' when there was none.
   */
  'lastCoachSession',
  /**
   * The coach brief (docs/decisions/083): what the coach remembers of them from every channel (the
   * current facts, the last episodes, what is next), at most about 1,500 tokens; '' when none.
   */
  'coachBrief',
  /**
   * The open commitments from earlier calls (the most recent five), numbered from 1, one a line;
   * '' when none is open. The call's report reviews them by number (`commitmentsReviewed`).
   */
  'openCommitments',
  /** 'daily check-in' | 'evening check-in' | 'monthly goal session'. */
  'callKind',
  /** The plan's limit for this call, in whole minutes. */
  'maxMinutes',
  /** The person's local date, YYYY-MM-DD. */
  'localDate',
  /** The person's IANA time zone. */
  'timezone',
] as const

export type CallVariable = (typeof CALL_VARIABLES)[number]
export type CallVariables = Record<CallVariable, string>

/**
 * The server messages a phone call posts to the webhook, and the saved assistant's (setup writes
 * them): the status and the report keep the record; the final transcript lines (one message per
 * finished utterance, never partials) are relayed to the person's open dashboard while the call
 * lives. Everything else would be posted for nothing.
 */
export const CALL_SERVER_MESSAGES = ['status-update', 'transcript[transcriptType="final"]', 'end-of-call-report'] as const satisfies readonly Vapi.CreateAssistantDtoServerMessagesItem[]

/**
 * A call in the app (the voice gateway) hears its transcripts on its own socket: its webhook keeps
 * the record only.
 */
export const WEB_CALL_SERVER_MESSAGES = ['status-update', 'end-of-call-report'] as const satisfies readonly Vapi.CreateAssistantDtoServerMessagesItem[]

/**
 * The assistant's own limit when a call sets none (Vapi's default, and Premium's daily call);
 * every dial overrides it with the plan's limit (5, 10, 15 or 30 minutes).
 */
export const DEFAULT_MAX_DURATION_SECONDS = 600

/** How long Vapi waits for our webhook to answer (its default; we answer in milliseconds). */
const WEBHOOK_TIMEOUT_SECONDS = 20

/**
 * The HMAC scheme (VAPI_WEBHOOK_AUTH=hmac): Vapi's credential defaults, spelled out so a change on
 * their side cannot silently change what the webhook verifies: hex(HMAC-SHA256(secret,
 * `${x-timestamp}.${rawBody}`)) in `x-signature`.
 */
const WEBHOOK_HMAC = {
  algorithm: 'sha256',
  signatureHeader: VAPI_SIGNATURE_HEADER,
  timestampHeader: VAPI_TIMESTAMP_HEADER,
  includeTimestamp: true,
  payloadFormat: '{timestamp}.{body}',
  signatureEncoding: 'hex',
} as const

/** How the webhook authenticates Vapi (VAPI_WEBHOOK_AUTH). */
export type WebhookAuthMode = 'secret' | 'hmac'

/** Every webhook credential `npm run vapi:setup` creates is named with this prefix. */
export const CREDENTIAL_PREFIX = 'Momentum Coach webhook'

/**
 * The webhook credential's name: the mode and a fingerprint of the secret (8 hex digits of a
 * SHA-256 of both), since Vapi never shows a secret back. At most 40 characters, Vapi's limit.
 * Setup creates the credential under it, and the calls find it by it (ADR 063).
 */
export function credentialName(auth: WebhookAuthMode, secret: string): string {
  const fingerprint = createHash('sha256').update(`momentum-coach:${auth}:${secret}`).digest('hex').slice(0, 8)
  return `${CREDENTIAL_PREFIX} ${auth} ${fingerprint}`
}

/** What Vapi should send with each webhook, for the mode the server verifies. */
export function authenticationPlan(auth: WebhookAuthMode, secret: string): Vapi.CreateWebhookCredentialDtoAuthenticationPlan {
  if (auth === 'hmac') return { type: 'hmac', secretKey: secret, ...WEBHOOK_HMAC }
  return { type: 'bearer', token: secret, headerName: VAPI_SECRET_HEADER, bearerPrefixEnabled: false }
}

// ---------------------------------------------------------------------------------------------
// What the assistant says
// ---------------------------------------------------------------------------------------------

const AREA_LIST = LIFE_AREAS.map((area) => LIFE_AREA_TITLES[area].toLowerCase().replace('&', 'and')).join(', ')

/** The system prompt: who the coach is and how a call goes. */
export const COACH_PROMPT = `You are the coach of Momentum Coach, an AI accountability coach. You are on a phone call with {{firstName}}. You are an AI, not a person: if you are asked, say so plainly.

# This call
- Call type: {{callKind}}
- Today is {{localDate}} where {{firstName}} lives (time zone {{timezone}}).
- Time limit: {{maxMinutes}} minutes. Stay within it.
If the call type is empty, {{firstName}} started this conversation in the app (a chat or a voice session): do not say you called; help with what they bring, in the same coaching style.

# What you know about {{firstName}}
- Goals: {{goalsSummary}}
- Focus areas (their three lowest-scored life areas): {{focusAreas}}
- Their number one goal for the next 90 days: {{goal90Days}}
- Obstacles they named: {{obstacles}}
- The last call's summary: {{previousCallSummary}}
- Their last 1-on-1 session with their human coach: {{lastCoachSession}}
- What you remember of them from your calls, chats, texts and their sessions (the newest facts replace older ones; use it naturally, never recite it):
{{coachBrief}}
- Their open commitments from earlier calls, numbered:
{{openCommitments}}
Anything blank above is unknown: do not invent it and do not point out that it is missing. If there was no last call, this is your first call together: welcome them and skip the follow-up. When there was a 1-on-1 session, build on what they agreed with their coach; never contradict the coach.

# Who you are
Momentum Coach helps people make steady progress in eight life areas (${AREA_LIST}) and in their work and career. You keep {{firstName}} accountable to what they said they would do. You are warm, direct and encouraging; curious, never judgmental; practical rather than inspirational. Small, finished steps matter more to you than big plans.

# How a check-in goes (daily check-in or evening check-in)
1. They have heard your greeting. Open with their commitments: if they have open commitments, ask about each one in turn, in its own words (never by its number): did they do it? Celebrate a win specifically. For a miss, or a step only partly done, get curious about what got in the way and what would make it easier, then move on. With no open commitments, skip this.
2. Ask how they are doing today, and notice their mood and energy.
3. Focus: choose one thing to work on, whatever they bring up, or else one of their focus areas or the 90-day goal. Help them find the next small step with one or two good questions. Let them find the answer before you suggest one.
4. Commit: agree on one to three concrete commitments for before the next call. Each is specific and small enough to finish by then, with when or where it happens. Say them back and get a clear yes.
5. Close with one sentence of encouragement and end the call.
An evening check-in looks back on today: what went well, what they learned, and what tomorrow's first step is.

# Monthly goal session
When the call type is "monthly goal session", you have up to {{maxMinutes}} minutes for a deeper review:
1. Review the past month against their 90-day goal: what moved, what stalled, and where they would put their progress on a scale of one to ten.
2. Touch briefly on each focus area: what changed this month.
3. Name the biggest obstacle and one way around it.
4. Set one or two milestones toward the 90-day goal for the coming month.
5. Agree on one to three concrete commitments for before the next call, as in a check-in, and close.

# How you speak
- This is a phone call. Use short, natural spoken sentences and ask one question at a time. No lists, headings, markdown, emojis or abbreviations.
- Let {{firstName}} do most of the talking. Reflect back in a few words; never lecture.
- Use their first name now and then, not in every turn.
- Say numbers, dates and times the way people say them aloud.
- Stay on coaching. If they drift, be kind and steer back to their goals.
- Watch the time: when about a minute of the {{maxMinutes}} is left, move to the commitments. If time runs out, say back the commitments you heard and say goodbye.

# Boundaries
- You are not a therapist, doctor, lawyer or financial adviser: give no diagnosis and no medical, legal or investment advice, and suggest a qualified professional when it comes up.
- If they mention thoughts of harming themselves or someone else, or an emergency, stop coaching. Tell them to call 911 or their local emergency number, or 988, the Suicide and Crisis Lifeline in the US, and stay kind and calm.
- If it is a bad time, offer to keep it to a single question (their one commitment for today) or to end the call. Never push.
- If they ask for no more calls, acknowledge it, tell them they can pause or stop calls in the app's schedule settings, and end the call politely.
- If someone other than {{firstName}} answers, share nothing about their goals or this call: ask for {{firstName}}, or say you will try another time and end the call.
- Never ask for passwords, payment details or other sensitive information.

# Ending the call
Once the commitments are agreed, or when {{firstName}} needs to go, say a short, warm goodbye and then end the call with the end call tool.`

/**
 * What the assistant says when the person picks up. Its first sentence discloses that an AI is
 * calling, from whom and why. `callKind` falls back to the daily check-in when a call leaves it out.
 */
export const COACH_FIRST_MESSAGE =
  'Hi {{firstName}}, this is the AI coach from Momentum Coach calling for your {{callKind | default: "daily check-in"}}. Is now still a good time to talk?'

/**
 * What the assistant says first in a voice call the person started in the app (the saved
 * assistant's own first message is the daily call's, which says it called). It says it is an AI.
 */
export const WEB_CALL_FIRST_MESSAGE = "Hi {{firstName}}, it's your AI coach from Momentum Coach. What would you like to work on today?"

/**
 * Left on an answering machine: neutral, nothing personal (no name, goal or detail), since anyone
 * may hear it.
 */
export const COACH_VOICEMAIL_MESSAGE =
  "Hello, this is an automated call from Momentum Coach for your scheduled check-in. We'll try again later. Goodbye."

// ---------------------------------------------------------------------------------------------
// The call report (a Vapi structured output)
// ---------------------------------------------------------------------------------------------

/** The structured output's name: consumers find the result by this name, never by its id. */
export const CALL_REPORT_OUTPUT = 'coaching_call_report'

export const CALL_REPORT_DESCRIPTION =
  'What a Momentum Coach coaching call covered: the life areas discussed, a one-paragraph summary, the person\'s mood and energy, the commitments they made for the next call, whether they kept each open commitment from earlier calls that the coach asked about, and the facts about them learned or changed.'

/**
 * The result's JSON schema, as Vapi's structured outputs take it (JSON Schema with `minimum`,
 * `maximum` and `maxItems`, which the SDK's `JsonSchema` type leaves out). Mood and energy are
 * optional: a call that gives no basis for them should leave them out rather than guess.
 */
export const CALL_REPORT_SCHEMA = {
  type: 'object',
  properties: {
    areasDiscussed: {
      type: 'array',
      description:
        'The ids of the life areas that were actually discussed in the call, each at most once. Work and career talk belongs to none of them unless it was about one of these areas (for example income: finance). Empty when none was discussed.',
      items: { type: 'string', enum: [...LIFE_AREAS] },
    },
    summary: {
      type: 'string',
      description:
        "One paragraph (two to four sentences) for the person's call history: how they were doing, what they reported on their last commitments, and what was worked on. Written in the third person with their first name, plain text.",
    },
    mood: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: "The person's mood during the call from 1 (very low) to 10 (excellent): as they rated it, else your best reading of what they said. Leave it out if the call gives no basis.",
    },
    energy: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: "The person's energy during the call from 1 (exhausted) to 10 (full of energy): as they rated it, else your best reading of what they said. Leave it out if the call gives no basis.",
    },
    commitments: {
      type: 'array',
      maxItems: 5,
      description:
        'The concrete things the person agreed to do before the next call, each a short imperative phrase in their words (for example "Walk 20 minutes before work on Tuesday and Thursday"). Empty when they committed to nothing.',
      items: { type: 'string' },
    },
    commitmentsReviewed: {
      type: 'array',
      maxItems: OPEN_COMMITMENTS_IN_CALL,
      description:
        'The open commitments from earlier calls that were talked about in this call (the assistant\'s instructions list them, numbered, under "Their open commitments from earlier calls"), each once: its number in that list, the commitment in the words of that list, and the outcome: "kept" if the person said they did it as agreed, "missed" if they said they did not, or did only part of it. Leave out a commitment that did not come up. Empty when none came up.',
      items: {
        type: 'object',
        properties: {
          number: { type: 'integer', minimum: 1, maximum: OPEN_COMMITMENTS_IN_CALL, description: 'Its number in the list of open commitments.' },
          commitment: { type: 'string', description: 'The commitment, in the words of the list.' },
          outcome: { type: 'string', enum: ['kept', 'missed'] },
        },
        required: ['commitment', 'outcome'],
      },
    },
    // What the coach's memory keeps of the call (docs/decisions/083).
    ...FACTS_SCHEMA_PROPERTIES,
  },
  required: ['areasDiscussed', 'summary', 'commitments'],
} as const

/** Limits on what is kept from a report (a model may ramble; the database keeps it all). */
export const CALL_REPORT_LIMITS = { summaryChars: 4000, commitments: 10, commitmentChars: 300 } as const

function cleanText(value: unknown, maxChars: number): string | null {
  if (typeof value !== 'string') return null
  const cleaned = storableText(value).replace(/\s+/g, ' ').trim()
  if (!cleaned) return null
  return cleaned.length > maxChars ? `${cleaned.slice(0, maxChars - 1).trimEnd()}…` : cleaned
}

const AREA_BY_NAME = new Map<string, LifeArea>()
for (const area of LIFE_AREAS) {
  AREA_BY_NAME.set(area, area)
  AREA_BY_NAME.set(LIFE_AREA_TITLES[area].toLowerCase(), area)
}

/** A life area id from an id or a title, in any case, with spaces or dashes for underscores. */
function lifeAreaOf(value: unknown): LifeArea | undefined {
  if (typeof value !== 'string') return undefined
  const name = value.trim().toLowerCase()
  return AREA_BY_NAME.get(name) ?? AREA_BY_NAME.get(name.replace(/[\s-]+/g, '_'))
}

/** An integer 1–10 from a number or a numeric string (rounded, clamped); null otherwise. */
function scoreOf(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN
  if (!Number.isFinite(number)) return null
  return Math.min(10, Math.max(1, Math.round(number)))
}

const KEPT = new Set(['kept', 'done', 'yes', 'completed', 'complete', 'true'])
const MISSED = new Set(['missed', 'not done', 'not_done', 'no', 'partly', 'partial', 'partly done', 'partly_done', 'false'])

/** One reviewed commitment ({number, commitment, outcome}), or null when it says nothing usable. */
function reviewOf(item: unknown): ReviewedCommitment | null {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return null
  const fields = item as Record<string, unknown>
  const said = typeof fields.outcome === 'boolean' ? String(fields.outcome) : typeof fields.outcome === 'string' ? fields.outcome.trim().toLowerCase() : ''
  const outcome = KEPT.has(said) ? 'kept' : MISSED.has(said) ? 'missed' : null
  if (!outcome) return null
  const raw = typeof fields.number === 'number' ? fields.number : typeof fields.number === 'string' && fields.number.trim() !== '' ? Number(fields.number) : Number.NaN
  const number = Number.isInteger(raw) && raw >= 1 ? raw : null
  const commitment = cleanText(fields.commitment, CALL_REPORT_LIMITS.commitmentChars)
  if (number === null && commitment === null) return null
  return { number, commitment, outcome }
}

/**
 * A call report's result, parsed leniently: it comes from a language model, so nothing in it
 * fails the parse. Unknown area ids are dropped (ids or titles are accepted, each area once),
 * mood and energy are rounded and clamped to 1–10 or null, an empty summary is null, and
 * commitments are trimmed, deduplicated and capped. Anything that is not an object gives the
 * empty report. Reviewed commitments need an outcome (kept or missed; "partly" counts as missed)
 * and a number or words; others are dropped.
 */
export const CallReportResult = z
  .unknown()
  .transform((input) => {
    const result = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
    const areas = Array.isArray(result.areasDiscussed) ? result.areasDiscussed : typeof result.areasDiscussed === 'string' ? [result.areasDiscussed] : []
    const areasDiscussed = [...new Set(areas.map(lifeAreaOf).filter((area): area is LifeArea => area !== undefined))]
    const listed = Array.isArray(result.commitments) ? result.commitments : typeof result.commitments === 'string' ? [result.commitments] : []
    const commitments: string[] = []
    for (const item of listed) {
      const commitment = cleanText(item, CALL_REPORT_LIMITS.commitmentChars)
      if (commitment && !commitments.some((kept) => kept.toLowerCase() === commitment.toLowerCase())) commitments.push(commitment)
      if (commitments.length === CALL_REPORT_LIMITS.commitments) break
    }
    const reviewed = Array.isArray(result.commitmentsReviewed) ? result.commitmentsReviewed : []
    const commitmentsReviewed: ReviewedCommitment[] = []
    for (const item of reviewed) {
      const review = reviewOf(item)
      if (review) commitmentsReviewed.push(review)
      if (commitmentsReviewed.length === CALL_REPORT_LIMITS.commitments) break
    }
    return {
      areasDiscussed,
      summary: cleanText(result.summary, CALL_REPORT_LIMITS.summaryChars),
      mood: scoreOf(result.mood),
      energy: scoreOf(result.energy),
      commitments,
      commitmentsReviewed,
      /** The facts learned and changed, for the coach's memory. */
      facts: ExtractedFacts.parse(result),
    }
  })

/** The call report the assistant fills in (Vapi's structured output CALL_REPORT_OUTPUT), cleaned. */
type StructuredCallReport = z.output<typeof CallReportResult>

/**
 * The call report in an end-of-call report's `artifact.structuredOutputs`
 * (`{ <output id>: { name, result } }`), found by CALL_REPORT_OUTPUT; null when it is not there.
 */
export function findCallReport(structuredOutputs: unknown): StructuredCallReport | null {
  if (structuredOutputs === null || typeof structuredOutputs !== 'object') return null
  for (const output of Object.values(structuredOutputs as Record<string, unknown>)) {
    if (output !== null && typeof output === 'object' && (output as { name?: unknown }).name === CALL_REPORT_OUTPUT) {
      return CallReportResult.parse((output as { result?: unknown }).result)
    }
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// The saved assistant
// ---------------------------------------------------------------------------------------------

/** How Vapi reaches our webhook: a credential (the default) or static headers. */
type WebhookServer = { url: string } & ({ credentialId: string } | { headers: Record<string, string> })

/** The model that speaks for the coach: fast enough for a phone call, good at short turns. */
const COACH_MODEL = { provider: 'openai', model: 'gpt-4.1', temperature: 0.6, maxTokens: 300 } as const

/**
 * The assistant as setup creates it, and the fields setup keeps as written on every run. The
 * voice and transcriber are left to Vapi's defaults, so a voice chosen in the dashboard stays.
 */
export function coachAssistant(options: { server: WebhookServer; structuredOutputId: string }): Vapi.CreateAssistantDto {
  return {
    name: COACH_ASSISTANT_NAME,
    firstMessage: COACH_FIRST_MESSAGE,
    firstMessageMode: 'assistant-speaks-first',
    model: {
      ...COACH_MODEL,
      messages: [{ role: 'system', content: COACH_PROMPT }],
      tools: [{ type: 'endCall' }],
    },
    voicemailDetection: { provider: 'vapi', type: 'audio', beepMaxAwaitSeconds: 25 },
    voicemailMessage: COACH_VOICEMAIL_MESSAGE,
    maxDurationSeconds: DEFAULT_MAX_DURATION_SECONDS,
    server: { ...options.server, timeoutSeconds: WEBHOOK_TIMEOUT_SECONDS },
    serverMessages: [...CALL_SERVER_MESSAGES],
    artifactPlan: { structuredOutputIds: [options.structuredOutputId] },
    metadata: { app: 'momentum-coach', managedBy: 'npm run vapi:setup' },
  }
}
