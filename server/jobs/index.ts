import { processorDeletion } from './account-data'
import { trialReminders } from './billing'
import { callsCancelDeleted, callsSweep, callsTick, placeCallJob, vapiEvent } from './calls'
import type { AnyJobDefinition } from './define'
import { cleanupExpired } from './maintenance'
import { weeklyReportDelivery, weeklyReportsSweep, weeklyReportsTick } from './reports'
import { sendEmail } from './send-email'
import { callsConsentRevoked, sendTextJob, textsInboundSweep, textsRelease } from './texts'

export type { AnyJobDefinition, JobContext, JobDefinition } from './define'

/** Every job the app runs. Both runners (in-process and BullMQ) read this list. */
export const JOBS: readonly AnyJobDefinition[] = [
  cleanupExpired,
  sendEmail,
  trialReminders,
  callsTick,
  placeCallJob,
  vapiEvent,
  callsSweep,
  sendTextJob,
  textsRelease,
  textsInboundSweep,
  callsConsentRevoked,
  callsCancelDeleted,
  processorDeletion,
  weeklyReportsTick,
  weeklyReportDelivery,
  weeklyReportsSweep,
]
