/**
 * The guard every code text passes (docs/decisions/060): a code to prove a number, or to confirm a
 * new one. Texting a code costs money and reaches a phone that has not agreed to anything yet, so
 * it is asked only by an account whose email is confirmed, only to a US or Canadian geographic
 * number, never to a number on the do-not-contact list, at most 3 times an hour and 10 times a day
 * per number whoever asks, and under a daily cap for the whole service (a warning in the log at
 * 80%, no more codes at 100%) that stops a script from pumping texts through the sign-up form.
 */
import type { Logger } from 'pino'
import { stoppedMessage } from '#common/account'
import type { DbExecutor } from '#server/db/client'
import { AppError } from '#server/lib/app-error'
import type { Counters } from '#server/lib/counters'
import { isCallableNumber, NOT_CALLABLE_MESSAGE } from '#server/lib/phone-numbers'
import { isStopped } from './do-not-contact'
import { numberDigest } from './numbers'

const CODES_PER_NUMBER_PER_HOUR = 3
const CODES_PER_NUMBER_PER_DAY = 10
/** The share of the daily cap at which the log warns. */
const CODES_WARN_AT = 0.8

const HOUR = 3_600_000
const DAY = 24 * HOUR

type CodeGuardDeps = {
  db: DbExecutor
  counters: Counters
  log: Logger
  now: () => number
  /** Codes the whole service texts in a day at most (PHONE_CODES_DAILY_CAP). */
  dailyCap: number
  /** SMS_OPT_IN_NUMBER, for the way back from a STOP. */
  smsNumber: string
}

const retryAfter = (resetAt: number, now: number) => Math.max(1, Math.ceil((resetAt - now) / 1000))

export { stoppedMessage }

type CodeRequest = { emailConfirmed: boolean; phoneNumber: string; field: string; displaySmsNumber: string }

/**
 * Admits one code text to `phoneNumber` (ten digits) for the account, or throws the reason it may
 * not go (naming `field`). Counts it against the number's and the service's caps once admitted.
 * `first`: the asker's own limit, checked after the rules and before anything is counted, so a
 * request the asker's limit refuses uses up nobody's cap.
 */
export async function admitCode(deps: CodeGuardDeps, input: CodeRequest, first?: () => Promise<void>): Promise<void> {
  await refuseUncodable(deps, input)
  await first?.()
  await countCode(deps, input)
}

/** The rules a code's number must meet, before anything is counted. */
async function refuseUncodable(deps: CodeGuardDeps, input: CodeRequest): Promise<void> {
  if (!input.emailConfirmed) {
    throw new AppError('EMAIL_NOT_CONFIRMED', 'Confirm your email address first: we text codes only to accounts with a confirmed email.', { field: input.field })
  }
  if (!isCallableNumber(input.phoneNumber)) throw new AppError('VALIDATION_FAILED', NOT_CALLABLE_MESSAGE, { field: input.field })
  if (await isStopped(deps.db, input.phoneNumber)) throw new AppError('NUMBER_STOPPED', stoppedMessage(input.displaySmsNumber), { field: input.field })
}

/** The number's caps (an hour, a day) and the service's daily cap, counted for one code. */
async function countCode(deps: CodeGuardDeps, input: CodeRequest): Promise<void> {
  const now = deps.now()
  const digest = numberDigest(input.phoneNumber)
  const hour = await deps.counters.hit(`code-number-hour:${digest}`, HOUR)
  if (hour.count > CODES_PER_NUMBER_PER_HOUR) {
    throw new AppError('RATE_LIMITED', 'We have texted this number several codes in the last hour. Please use the last one, or try again later.', {
      field: input.field,
      retryAfter: retryAfter(hour.resetAt, now),
    })
  }
  const day = await deps.counters.hit(`code-number-day:${digest}`, DAY)
  if (day.count > CODES_PER_NUMBER_PER_DAY) {
    throw new AppError('RATE_LIMITED', 'We have texted this number too many codes today. Please try again tomorrow.', {
      field: input.field,
      retryAfter: retryAfter(day.resetAt, now),
    })
  }
  const all = await deps.counters.hit('code-all-day', DAY)
  const warnAt = Math.ceil(deps.dailyCap * CODES_WARN_AT)
  if (all.count === warnAt) deps.log.warn({ codesToday: all.count, cap: deps.dailyCap }, 'phone codes: 80% of the daily cap (PHONE_CODES_DAILY_CAP) is used')
  if (all.count > deps.dailyCap) {
    if (all.count === deps.dailyCap + 1) deps.log.error({ cap: deps.dailyCap }, 'phone codes: the daily cap (PHONE_CODES_DAILY_CAP) is reached: no more codes are texted until it resets')
    throw new AppError('CODES_UNAVAILABLE', undefined, { retryAfter: retryAfter(all.resetAt, now) })
  }
}
