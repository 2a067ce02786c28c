import { describe, expect, it } from 'vitest'
import { CHAT_ERRORS } from '#common/chat'
import { ERRORS } from '#common/errors'
import { USAGE_TEXT } from '#common/usage'
import { ApiError } from '../../web/src/lib/api-error'
import { sendFailure } from '../../web/src/features/chat/send-failure'

const refusal = (code: string, status: number, message: string) => new ApiError({ status, code, message })

describe('what the chat shows when a message could not be answered (spec 2 §8)', () => {
  it("the assistant's own failures are its text reply in the chat, no toast", () => {
    expect(sendFailure(refusal('ASSISTANT_TIMEOUT', 504, ERRORS.ASSISTANT_TIMEOUT.message))).toEqual({ reply: CHAT_ERRORS.timeout, toast: null })
    expect(sendFailure(refusal('ASSISTANT_UNAVAILABLE', 502, ERRORS.ASSISTANT_UNAVAILABLE.message))).toEqual({ reply: CHAT_ERRORS.processingTrouble, toast: null })
  })

  it("a network failure: the toast 'Error' - 'Failed to send message. Please try again.' and the connection-trouble reply", () => {
    expect(sendFailure(refusal('NETWORK_ERROR', 0, 'offline'))).toEqual({ reply: CHAT_ERRORS.connectionTrouble, toast: { title: 'Error', description: CHAT_ERRORS.sendFailed } })
    expect(sendFailure(new Error('boom'))).toEqual({ reply: CHAT_ERRORS.connectionTrouble, toast: { title: 'Error', description: CHAT_ERRORS.sendFailed } })
  })

  it("the plan's messages used up: a toast of its own with the server's words (how many, and when they come back), no reply", () => {
    const message = "You've used this month's 300 messages to your coach. They come back on July 1."
    expect(sendFailure(refusal('USAGE_LIMIT_REACHED', 429, message))).toEqual({ reply: null, toast: { title: USAGE_TEXT.chatLimitTitle, description: message } })
  })

  it("any other refusal: the toast 'Error' with the server's own message", () => {
    expect(sendFailure(refusal('CONVERSATION_FULL', 409, ERRORS.CONVERSATION_FULL.message))).toEqual({ reply: null, toast: { title: 'Error', description: ERRORS.CONVERSATION_FULL.message } })
  })
})
