import { processorDeletion } from './account-data'
import { trialReminders } from './billing'
import { callsCancelDeleted, callsConsentRevoked, callsSweep, callsTick, placeCallJob, vapiEvent } from './calls'
import type { AppJob, SameJobs } from './contracts'
import type { AnyJobDefinition } from './define'
import { cleanupExpired } from './maintenance'
import { weeklyReportDelivery, weeklyReportsSweep, weeklyReportsTick } from './reports'
import { memoryExtractChat, memoryRecord } from './memory'
import { sendEmail } from './send-email'
import { coachAssignmentsSweep, coachMessageNotices, coachSessionReminders } from './coach'
import { supportRepliesSweep, supportReplyEmail } from './support'
import { sendTextJob, textsInboundSweep, textsRelease } from './texts'

export type { AppJobQueue, JobName, PayloadOf } from './contracts'

/** Every job the app runs. Both runners (in-process and BullMQ) read this list. */
export const JOBS = [
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
  supportReplyEmail,
  supportRepliesSweep,
  coachAssignmentsSweep,
  coachMessageNotices,
  coachSessionReminders,
  memoryRecord,
  memoryExtractChat,
] as const satisfies readonly AnyJobDefinition[]

/** A registry job: one of the contracts, with its handler. */
export type RegistryJob = (typeof JOBS)[number]

// Each job here is one of the domains' contracts (its name with that payload schema), and each
// contract has its job here: a compile error otherwise.
const everyJobHasItsContract: readonly AppJob[] = JOBS
const everyContractHasItsJob: SameJobs<RegistryJob, AppJob> = true
void [everyJobHasItsContract, everyContractHasItsJob]
