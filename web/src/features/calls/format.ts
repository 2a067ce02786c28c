/**
 * How the calls screens put things into words: the next call ("Tomorrow, 7:30 AM Eastern"), why
 * there is none, a call's status, how it ended, why it was skipped, and its timeline. Pure (the
 * clock is passed in), so it is tested without a browser.
 */
import { stoppedMessage } from '#common/account'
import { LATE_AFTER_SECONDS, type CallEvent, type DialWaitReason, type NextCallResponse, type NoCallReason } from '#common/calls'
import type { CallKind, CallSlotName } from '#common/domain'
import { fromDailyCallTime, timezoneByIana } from '#common/goals'
import { LIFE_AREA_TITLES } from '#common/life-areas'

/** The product's name for a zone ('Eastern'), or the IANA name for a zone outside its eight. */
export const zoneLabel = (timeZone: string) => timezoneByIana(timeZone)?.label ?? timeZone

/** A 24-hour 'HH:MM' as '7:30 AM'. */
export function clockTime(localTime: string): string {
  const { time, period } = fromDailyCallTime(localTime)
  return `${time} ${period}`
}

/** The local date ('YYYY-MM-DD') of an instant in a zone. */
export function localDateIn(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant)
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  return `${part('year')}-${part('month')}-${part('day')}`
}

/** The calendar date `days` after a 'YYYY-MM-DD'. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

/** A 'YYYY-MM-DD' as 'Tuesday, December 1' (with the year when it is not `thisYear`'s). */
export function longDate(date: string, today?: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  const sameYear = today ? today.slice(0, 4) === date.slice(0, 4) : false
  return new Intl.DateTimeFormat('en-US', {
    timeZone: 'UTC',
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(new Date(Date.UTC(y, m - 1, d, 12)))
}

/** 'Today', 'Tomorrow', or the weekday and date. */
export function dayLabel(date: string, today: string): string {
  if (date === today) return 'Today'
  if (date === addDays(today, 1)) return 'Tomorrow'
  return longDate(date, today)
}

type NextCall = NonNullable<NextCallResponse['next']>

/** "Tomorrow, 7:30 AM Eastern": the day as the person lives it, the time, the zone. */
export function nextCallText(next: NextCall, now: Date): string {
  const today = localDateIn(now, next.timeZone)
  return `${dayLabel(next.localDate, today)}, ${clockTime(next.localTime)} ${zoneLabel(next.timeZone)}`
}

/** What a call is: the daily call, the evening check-in, a test call, or the monthly goal session. */
export function callKindLabel(slot: CallSlotName | undefined, kind: CallKind | undefined): string {
  if (kind === 'goal_session') return 'Monthly goal session'
  if (slot === 'evening') return 'Evening check-in'
  if (slot === 'test') return 'Test call'
  if (slot === 'web' || kind === 'web') return 'Voice call in the app'
  return 'Daily check-in'
}

/**
 * Why no call is scheduled: a title, what it means, and where to fix it (if the person can).
 * `verify`: the fix is on the spot, "Verify your number" (docs/decisions/060).
 */
type NoCallExplanation = {
  title: string
  description: string
  action: { label: string; to: '/calls/schedule' | '/goal-intake' | '/payment' } | null
  verify?: true
}

export function noCallExplanation(reason: NoCallReason | null, pausedUntil: string | null, today: string, startNumber: string | null = null): NoCallExplanation {
  switch (reason) {
    case 'unverified':
      return {
        title: 'Verify your number',
        description: 'We call and text only a number you have proven is yours. Verify your number to get your calls.',
        action: null,
        verify: true,
      }
    case 'stopped':
      return {
        title: 'Calls and texts are stopped',
        description: startNumber ? stoppedMessage(startNumber) : 'This number texted STOP. Text START to our number to turn calls and texts back on.',
        action: null,
      }
    case 'payment':
      return {
        title: 'No call scheduled',
        description: 'Your plan is not active, so we cannot call you. Choose a plan to get your daily calls.',
        action: { label: 'Choose a plan', to: '/payment' },
      }
    case 'onboarding':
      return {
        title: 'No call scheduled',
        description: 'Finish setting your goals and choose a call time to get your first call.',
        action: { label: 'Set your goals', to: '/goal-intake' },
      }
    case 'phone':
      return { title: 'No call scheduled', description: 'We do not have a phone number to call you on.', action: null }
    case 'consent':
      return {
        title: 'Calls are turned off',
        description: 'You turned daily coaching calls off. Turn them on to be called again.',
        action: { label: 'Turn calls on', to: '/calls/schedule' },
      }
    case 'paused':
      return {
        title: 'Calls are paused',
        description: pausedUntil ? `Calls are paused until ${longDate(pausedUntil, today)}.` : 'Your calls are paused.',
        action: { label: 'Change your schedule', to: '/calls/schedule' },
      }
    case 'no_call_time':
      return {
        title: 'No call time chosen',
        description: 'Choose the time of day your coach should call you.',
        action: { label: 'Choose a call time', to: '/calls/schedule' },
      }
    case 'not_configured':
      return { title: 'Calls are not available yet', description: 'Coaching calls are not set up on this server yet.', action: null }
    default:
      return { title: 'No call scheduled', description: 'There is no call scheduled right now.', action: null }
  }
}

/** A call's status as the dashboard badge writes it ('completed', 'no answer'). */
export const statusText = (status: string) => status.replace(/_/g, ' ')

const CONVERSATION_ENDINGS: Record<string, string> = {
  'customer-ended-call': 'you hung up',
  'assistant-ended-call': 'the coach ended the call',
  'assistant-said-end-call-phrase': 'the coach ended the call',
  'assistant-ended-call-after-message-spoken': 'the coach ended the call',
  'assistant-ended-call-with-hangup-task': 'the coach ended the call',
  'exceeded-max-duration': 'the call reached its time limit',
  'silence-timed-out': 'the line was silent for too long',
  'customer-did-not-answer': 'no answer',
  'customer-busy': 'the line was busy',
  voicemail: 'it reached voicemail',
  'twilio-failed-to-connect-call': 'the call could not be connected',
  'vonage-failed-to-connect-call': 'the call could not be connected',
  'twilio-reported-customer-misdialed': 'the number could not be dialled',
  'vonage-rejected': 'the phone network refused the call',
  'manually-canceled': 'the call was cancelled',
  'scheduled-call-deleted': 'the call was cancelled',
  'call-deleted': 'the call was cancelled',
  'assistant-not-found': 'the call could not be started (a problem on our side)',
  'assistant-not-valid': 'the call could not be started (a problem on our side)',
  'worker-shutdown': 'the calling service had a problem',
  'phone-call-provider-closed-websocket': 'the calling service had a problem',
  // Ours, for a call that could not be placed or was lost.
  'no-phone-number': 'there was no phone number to call',
  'vapi-unconfirmed': 'the calling service did not confirm the call',
  'dial-abandoned': 'the call could not be placed',
  'call-not-found': 'the calling service has no record of the call',
  // Vapi refused the call for want of a free line (its concurrency limit; docs/decisions/070).
  'call.start.error-subscription-concurrency-limit-reached': 'all our coaching lines were busy',
  'call-never-ended': 'the calling service never reported the end of the call',
}

/** Why the call ended: Vapi's ended reason, or ours for a call that was never placed, in words ('customer-busy' → 'the line was busy'). */
export function endedReasonText(reason: string | null | undefined): string {
  if (!reason) return 'the call ended'
  const known = CONVERSATION_ENDINGS[reason]
  if (known) return known
  if (reason.startsWith('not-eligible-')) return `we could not call you: ${skipReasonText(reason.slice('not-eligible-'.length).replace(/-/g, '_'))}`
  if (reason.startsWith('vapi-refused-')) return 'the calling service refused the call'
  if (/sip-(480|408)/.test(reason)) return 'no answer'
  if (reason.startsWith('call.start.error')) return 'the call could not be started (a problem on our side)'
  if (reason.includes('providerfault')) return 'the phone provider had a problem'
  if (reason.includes('vapifault')) return 'the calling service had a problem'
  return reason.replace(/[-._]+/g, ' ')
}

const SKIP_REASONS: Record<string, string> = {
  payment: 'your plan was not active',
  onboarding: 'your goals were not set yet',
  phone: 'there was no phone number to call',
  consent: 'calls were turned off',
  paused: 'calls were paused',
  no_call_time: 'no call time was chosen',
  not_configured: 'calls were not set up on this server',
  outside_allowed_hours: 'it would have been outside the hours we call at (8 AM to 9 PM)',
  // Why a call that was not answered was not tried again.
  not_a_daily_call: 'only the daily calls are tried again',
  no_attempts_left: 'both retries were used',
  not_eligible: 'we could not call you then',
  // Still waiting for a free line an hour after its time (docs/decisions/070).
  no_line_free: 'all our coaching lines were busy for an hour',
}

/** Why a call was skipped or not retried, in words. */
export function skipReasonText(reason: string | null | undefined): string {
  if (!reason) return 'it could not be placed'
  return SKIP_REASONS[reason] ?? reason.replace(/[-._]+/g, ' ')
}

/**
 * How late, to the nearest minute: '1 minute', '4 minutes', '1 hour', '1 hour 5 minutes'. Never
 * '0 minutes': it is only said of a call more than a minute late.
 */
export function lateDurationText(seconds: number): string {
  const total = Math.max(1, Math.round(seconds / 60))
  const hours = Math.floor(total / 60)
  const minutes = total % 60
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`
  if (hours === 0) return count(minutes, 'minute')
  return minutes === 0 ? count(hours, 'hour') : `${count(hours, 'hour')} ${count(minutes, 'minute')}`
}

const LATE_REASONS: Record<DialWaitReason, string> = {
  lines_busy: 'all our coaching lines were busy',
  pace: 'many calls were due at once, and we place only a few calls a second',
}

const lateBecause = (reason: unknown) => (typeof reason === 'string' && Object.hasOwn(LATE_REASONS, reason) ? LATE_REASONS[reason as DialWaitReason] : null)

/**
 * How late a phone call was placed and why (docs/decisions/070): 'Placed 4 minutes late: all our
 * coaching lines were busy'; without the why when none is known. Null for a call placed within a
 * minute of its time (or not placed).
 */
export function lateText(lateSeconds: number | null | undefined, reason: string | null | undefined): string | null {
  if (typeof lateSeconds !== 'number' || !Number.isFinite(lateSeconds) || lateSeconds <= LATE_AFTER_SECONDS) return null
  const why = lateBecause(reason)
  return `Placed ${lateDurationText(lateSeconds)} late${why ? `: ${why}` : ''}`
}

/** A time of day in a zone: '7:30 AM'. */
export function timeIn(instant: string | Date, timeZone: string | null | undefined): string {
  return new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', ...(timeZone ? { timeZone } : {}) }).format(new Date(instant))
}

/** A time with seconds in a zone (the timeline): '7:30:05 AM'. */
export function preciseTimeIn(instant: string | Date, timeZone: string | null | undefined): string {
  return new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit', ...(timeZone ? { timeZone } : {}) }).format(new Date(instant))
}

const stringIn = (detail: Record<string, unknown> | null, keys: readonly string[]): string | null => {
  for (const key of keys) {
    const value = detail?.[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return null
}

const isInstant = (value: string | null): value is string => value !== null && !Number.isNaN(Date.parse(value))

/**
 * One step of a call's timeline in words: 'Scheduled', 'Dialled', 'Ringing', 'Answered',
 * 'Ended: the line was busy', 'Retry scheduled at 7:40 AM', 'Skipped because calls were paused',
 * 'Placed 4 minutes late: all our coaching lines were busy'.
 */
export function eventText(event: CallEvent, call: { endedReason: string | null; skipReason: string | null; timeZone: string | null }): string {
  const { detail } = event
  switch (event.type) {
    case 'scheduled':
      return 'Scheduled'
    case 'dialled':
      return 'Dialled'
    case 'queued':
      return detail?.late === true ? 'Queued (reported late)' : 'Queued by the phone service'
    case 'ringing':
      return detail?.late === true ? 'Ringing (reported late)' : 'Ringing'
    case 'answered':
      return detail?.late === true ? 'Answered (reported late)' : 'Answered'
    case 'ended':
      return `Ended: ${endedReasonText(stringIn(detail, ['endedReason', 'reason']) ?? call.endedReason)}`
    case 'report':
      return 'Summary received'
    case 'retry_scheduled': {
      const at = stringIn(detail, ['retryAt', 'at', 'dueAt', 'scheduledFor'])
      return isInstant(at) ? `Retry scheduled at ${timeIn(at, call.timeZone)}` : 'Retry scheduled'
    }
    case 'not_retried':
      return `Not retried because ${skipReasonText(stringIn(detail, ['reason', 'skipReason']))}`
    case 'skipped':
      return `Skipped because ${skipReasonText(stringIn(detail, ['reason', 'skipReason']) ?? call.skipReason)}`
    case 'dial_failed': {
      const reason = stringIn(detail, ['reason'])
      return reason ? `Not placed: ${endedReasonText(reason)}` : 'The call could not be placed'
    }
    case 'reconciled':
      return 'Checked with the phone service'
    case 'end_requested':
      return 'You ended the call from the dashboard'
    case 'line_wait': {
      // Written for a call dialled more than a minute late; a detail without the seconds still says why.
      const reason = stringIn(detail, ['reason'])
      const why = lateBecause(reason)
      return lateText(typeof detail?.lateSeconds === 'number' ? detail.lateSeconds : null, reason) ?? `Placed late${why ? `: ${why}` : ''}`
    }
    default: {
      const words = event.type.replace(/[-._]+/g, ' ')
      return words.charAt(0).toUpperCase() + words.slice(1)
    }
  }
}

/** Seconds as '5 min 12 s' ('0 s' for none). */
export function durationText(seconds: number): string {
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  if (minutes === 0) return `${rest} s`
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`
}

/** A life area's title ('Fitness & Health'), or the id itself for anything else. */
export const areaTitle = (area: string) => (LIFE_AREA_TITLES as Record<string, string>)[area] ?? area
