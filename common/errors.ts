import { z } from 'zod'
import { text } from './text'

/**
 * Every error code the API answers with, each with its HTTP status and the message used when the
 * thrower gives none. The server's AppError takes a code from this list only; the web maps codes
 * to the texts it shows. One code, one status.
 */
export const ERRORS = {
  // 400
  BAD_REQUEST: { status: 400, message: 'The request is not valid.' },
  VALIDATION_FAILED: { status: 400, message: 'Invalid request' },
  INVALID_TOKEN: { status: 400, message: 'This link is invalid or has expired. Please request a new one.' },
  COMMON_PASSWORD: {
    status: 400,
    message: 'This password is one of the most commonly used passwords. Please choose a less common one.',
  },
  INVALID_SIGNATURE: { status: 400, message: 'The signature does not match the payload.' },
  /** The account page: the current password, asked before a change of password or email, is not the account's. */
  WRONG_PASSWORD: { status: 400, message: 'Your current password is not correct.' },
  /** The account page: the code texted to a new phone number is wrong, used up or expired. */
  INVALID_CODE: { status: 400, message: 'That code is not right. Check the text and try again.' },
  /** Two-factor sign-in: the code from the authenticator app (or the recovery code) is wrong, used already or too old. */
  INVALID_TWO_FACTOR_CODE: { status: 400, message: 'That code is not right. Check your authenticator app and try again.' },
  // 401
  UNAUTHENTICATED: { status: 401, message: 'Please log in to continue.' },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid email or password' },
  /** The session has passed the password but not yet the code of two-factor sign-in: only the code step works. */
  TWO_FACTOR_PENDING: { status: 401, message: 'Enter the code from your authenticator app to finish signing in.' },
  // 403
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  PAYMENT_REQUIRED: { status: 403, message: 'An active subscription is required. Please choose a plan.' },
  /** A paid feature of the higher plans (Premium and Elite's detailed analytics) asked for on Basic. */
  PLAN_UPGRADE_REQUIRED: { status: 403, message: 'Detailed analytics come with the Premium and Elite plans. Upgrade your plan to see your progress charts.' },
  EMAIL_NOT_CONFIRMED: { status: 403, message: 'Please check your email and confirm your account' },
  /** Direct coach access (the message thread) on a plan other than Elite (1-on-1 sessions say so in their own words). */
  ELITE_REQUIRED: { status: 403, message: 'Direct coach access comes with the Elite plan. Upgrade your plan to message a coach.' },
  /** A staff page or operation, asked by a staff member who has not set up two-factor sign-in: the web app sends them to set it up. */
  TWO_FACTOR_REQUIRED: { status: 403, message: 'Staff pages need two-factor sign-in. Set it up to continue.' },
  // 404
  NOT_FOUND: { status: 404, message: 'Not found' },
  // 409
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  EMAIL_TAKEN: { status: 409, message: 'An account with this email already exists. Please try logging in instead.' },
  PAYMENTS_NOT_CONFIGURED: {
    status: 409,
    message: 'Payments are in testing mode on this server: no Stripe keys are configured.',
  },
  TESTING_MODE_DISABLED: { status: 409, message: 'Payments are live: choose a plan to check out.' },
  ALREADY_SUBSCRIBED: {
    status: 409,
    message: 'You already have an active subscription. You can change it from the billing portal.',
  },
  NO_BILLING_ACCOUNT: { status: 409, message: 'You have no billing account yet. Choose a plan first.' },
  CONSENT_TEXT_CHANGED: {
    status: 409,
    message: 'The opt-in instructions have changed. Please reload the page and read them again.',
  },
  CONVERSATION_FULL: { status: 409, message: 'This conversation is full. Please start a new chat.' },
  DUPLICATE_MESSAGE: { status: 409, message: 'This message was already sent.' },
  /** Twilio refused to text the code to the new phone number (not a mobile number, opted out of our number...). */
  PHONE_UNREACHABLE: { status: 409, message: 'We could not text a code to this number. Check the number and try again.' },
  /** The person's number texted STOP (the do-not-contact list): only a START from it brings calls and texts back. */
  NUMBER_STOPPED: { status: 409, message: 'This number texted STOP. Text START to our number to turn calls and texts back on.' },
  /** A call or a text needs the person's number proven first (a START from it, or the code we text to it). */
  NUMBER_NOT_VERIFIED: { status: 409, message: 'Verify your phone number first: we call and text only a number you have proven is yours.' },
  CALLS_NOT_CONFIGURED: { status: 409, message: 'Coaching calls are not set up on this server yet.' },
  CALL_NOT_ELIGIBLE: { status: 409, message: 'We cannot call you right now. Check your plan, phone number and call settings.' },
  CALL_IN_PROGRESS: { status: 409, message: 'A call to you is already under way.' },
  /** `end-phone-call` for a call of the user's that is not under way (ended, or not dialled yet). */
  CALL_NOT_LIVE: { status: 409, message: 'This call is not under way.' },
  /** The voice gateway (protocol `error` codes and refusals): voice is not configured on this server. */
  VOICE_NOT_CONFIGURED: { status: 409, message: 'Voice assistant is not available. Please check your configuration.' },
  /** A second voice call while one of the user's is live (on any socket, on any server). */
  VOICE_SESSION_ACTIVE: { status: 409, message: 'A voice call is already under way. End it before starting another.' },
  /** `end` or a typed message with no voice call live on the socket. */
  VOICE_NOT_ACTIVE: { status: 409, message: 'Not currently in a call.' },
  /** The Help page: the person already has SUPPORT_OPEN_TICKETS_MAX requests open (common/support.ts). */
  SUPPORT_TICKET_LIMIT: { status: 409, message: 'You have 5 support requests open. Add to one of them, or wait for a reply.' },
  /** A support request holds SUPPORT_MESSAGES_PER_TICKET_MAX messages at most. */
  SUPPORT_THREAD_FULL: { status: 409, message: 'This support request is full. Please open a new one.' },
  /** The support inbox keeps CANNED_REPLIES_MAX canned replies at most. */
  CANNED_REPLY_LIMIT: { status: 409, message: 'There are 100 canned replies already. Delete one first.' },
  /** An Elite member sent COACH_MESSAGES_PER_DAY messages to their coach today. */
  COACH_MESSAGE_LIMIT: { status: 409, message: "You've sent 50 messages to your coach today. Your coach will reply; you can write again tomorrow." },
  /** 1-on-1 sessions: the slot was taken (by another member's hold or booking) before this one. */
  SLOT_TAKEN: { status: 409, message: 'That time was just taken. Please choose another.' },
  /** 1-on-1 sessions: the 5-minute hold on the slot ran out before the booking was confirmed. */
  HOLD_EXPIRED: { status: 409, message: 'Your hold on that time ran out. Please choose a time again.' },
  /** 1-on-1 sessions: the member's session of that month is booked or used already (one a month). */
  SESSION_ALREADY_USED: { status: 409, message: "You've already used this month's 1-on-1 session. You can book next month's." },
  /** 1-on-1 sessions: a change (reschedule) asked less than 24 hours before the session. */
  SESSION_CHANGE_CLOSED: { status: 409, message: 'Sessions can be moved up to 24 hours before they start.' },
  // 426
  UPGRADE_REQUIRED: { status: 426, message: 'This address takes a WebSocket connection.' },
  // 413, 415, 429
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  CONVERSATION_TOO_LARGE: { status: 413, message: 'This conversation has reached its size limit. Please start a new chat.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body has an unsupported media type.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests. Please try again later.' },
  /** The plan's in-app budget (voice minutes or chat turns) is spent for the month or the day (common/usage.ts); Retry-After says until when. */
  USAGE_LIMIT_REACHED: { status: 429, message: "You've used your plan's allowance for now. Your account page shows when it comes back." },
  // 5xx
  INTERNAL: { status: 500, message: 'Something went wrong on our side. Please try again.' },
  /** The service's daily cap on code texts is reached (PHONE_CODES_DAILY_CAP). */
  CODES_UNAVAILABLE: { status: 503, message: 'We cannot text codes right now. Please try again later.' },
  PAYMENT_PROVIDER_ERROR: { status: 502, message: 'The payment service refused the request. Please try again later.' },
  ASSISTANT_UNAVAILABLE: { status: 502, message: "I'm having trouble processing your message. Please try again." },
  /** The voice provider refused or dropped the call. */
  VOICE_UNAVAILABLE: { status: 502, message: "Sorry, I couldn't process the voice call. Please try again." },
  /** Every coaching line is in use (phone calls and voice calls in the app share them; docs/decisions/069). */
  VOICE_LINES_BUSY: { status: 503, message: 'All our coaching lines are busy right now. Please try again in a few minutes.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not available right now. Please try again later.' },
  PAYMENT_PROVIDER_UNREACHABLE: {
    status: 503,
    message: 'The payment service could not be reached. Please try again in a moment.',
  },
  /** The code's text could not be handed to Twilio just now (nothing was sent). */
  TEXT_NOT_SENT: { status: 503, message: "We couldn't send the text just now. Please try again in a minute." },
  PLAN_PRICE_MISSING: { status: 503, message: 'This plan is not set up for payment yet. Please try again later.' },
  ASSISTANT_TIMEOUT: { status: 504, message: 'Timeout waiting for assistant response' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof ERRORS

/**
 * The generic code for a bare status: an error that carries only a status (the framework's own on
 * the server, a proxy's non-JSON page in the browser).
 */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'BAD_REQUEST'
    case 401:
      return 'UNAUTHENTICATED'
    case 403:
      return 'FORBIDDEN'
    case 404:
      return 'NOT_FOUND'
    case 409:
      return 'CONFLICT'
    case 413:
      return 'PAYLOAD_TOO_LARGE'
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE'
    case 422:
      return 'VALIDATION_FAILED'
    case 429:
      return 'RATE_LIMITED'
    case 502:
    case 503:
    case 504:
      return 'SERVICE_UNAVAILABLE'
    default:
      return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST'
  }
}

/** The contract's error body: {"error":{"code":"...","message":"..."}} plus the offending field when known. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: text(),
    message: text(),
    field: text().optional(),
  }),
})
export type ErrorBody = z.infer<typeof ErrorBodySchema>
