import { MEMORY_JOBS } from '#server/services/memory'
import { defineJob } from './define'

/** One source's episode and facts into the coach's memory (once per source: a retry or a repeat adds nothing). */
export const memoryRecord = defineJob({
  ...MEMORY_JOBS.record,
  queue: 'memory',
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 30_000,
  async handler(services, payload, { log }) {
    const outcome = await services.memory.record(payload)
    if (outcome.applied) log.info({ channel: payload.channel, ...outcome }, 'memory: source recorded')
    return outcome
  },
})

/** A chat quiet for 10 minutes: one extraction turn, then its episode and facts. */
export const memoryExtractChat = defineJob({
  ...MEMORY_JOBS.extractChat,
  queue: 'memory',
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 60_000,
  async handler(services, payload, { log }) {
    const outcome = await services.memory.extractChat(payload.userId, payload.conversationId, payload.messageId)
    if (outcome?.applied) log.info({ channel: 'chat', ...outcome }, 'memory: chat recorded')
    return outcome ?? { applied: false }
  },
})
