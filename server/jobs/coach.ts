import { COACH_JOBS } from '#server/services/coach'
import { COACH_SESSIONS_JOBS } from '#server/services/coach-sessions'
import { defineJob } from './define'

/** Elite members without a coach get one; assignments of members who left Elite, or of coaches gone, end. */
export const coachAssignmentsSweep = defineJob({
  ...COACH_JOBS.assignmentsSweep,
  // A queue of its own: the nightly cleanup never waits behind it (and the other way round).
  queue: 'coach',
  // Every 10 minutes, at :35 s of the 4th minute (away from the other jobs' seconds).
  schedule: { cron: '35 4-59/10 * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.coach.sweep()
    if (result.waiting > 0) log.warn(result, 'coach: Elite members wait for a coach (every coach is full)')
    return result
  },
})

/** One email about unread coach-thread messages per person and side, at most every 15 minutes. */
export const coachMessageNotices = defineJob({
  ...COACH_JOBS.messageNotices,
  queue: 'coach',
  // Every 2 minutes, at :50 s (away from the other jobs' seconds).
  schedule: { cron: '50 */2 * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.coach.thread.sendNotices()
    if (result.sent > 0) log.info(result, 'coach: message notices sent')
    return result
  },
})

/** The 1-on-1 sessions' reminders (24 hours and 1 hour before), each claimed before it is sent. */
export const coachSessionReminders = defineJob({
  ...COACH_SESSIONS_JOBS.reminders,
  queue: 'coach',
  // Every minute, at :20 s (away from the other jobs' seconds).
  schedule: { cron: '20 * * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 10_000,
  async handler(services, _payload, { log }) {
    const result = await services.coachSessions.sendReminders()
    if (result.sent > 0) log.info(result, 'coach: session reminders sent')
    return result
  },
})
