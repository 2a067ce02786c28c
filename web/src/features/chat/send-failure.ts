import { CHAT_ERRORS } from '#common/chat'
import { USAGE_TEXT } from '#common/usage'
import { isApiError } from '#web/lib/api-error'

type SendFailure = { reply: string | null; toast: { title: string; description: string } | null }

/**
 * What the chat shows when a message could not be answered (spec 2 §8), by cause: the assistant's
 * own failures as its text reply in the chat ('Timeout waiting for assistant response', "I'm having
 * trouble processing your message. Please try again."); a network failure as the toast 'Error' -
 * 'Failed to send message. Please try again.' plus the connection-trouble reply; the plan's
 * messages used up (docs/decisions/061) as a toast of its own with the server's words (how many,
 * and when they come back); any other refusal (a full conversation, too many requests) as the toast
 * 'Error' with the server's own message. Replies shown here are never saved.
 */
export function sendFailure(error: unknown): SendFailure {
  if (isApiError(error) && !error.isNetworkError) {
    if (error.is('ASSISTANT_TIMEOUT')) return { reply: CHAT_ERRORS.timeout, toast: null }
    if (error.is('ASSISTANT_UNAVAILABLE')) return { reply: CHAT_ERRORS.processingTrouble, toast: null }
    if (error.is('USAGE_LIMIT_REACHED')) return { reply: null, toast: { title: USAGE_TEXT.chatLimitTitle, description: error.message } }
    return { reply: null, toast: { title: CHAT_ERRORS.sendFailedTitle, description: error.message } }
  }
  return { reply: CHAT_ERRORS.connectionTrouble, toast: { title: CHAT_ERRORS.sendFailedTitle, description: CHAT_ERRORS.sendFailed } }
}
