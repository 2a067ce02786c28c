/**
 * What the parts of the calls domain share: the database, the time, the log, the job queue, the
 * Vapi calls client (and the one that can dial), where live events go, and the eligibility check
 * the record and the dialler ask at a call's instant.
 */
import type { Logger } from 'pino'
import type { FinalCallStatus } from '#common/domain'
import type { Db, DbExecutor } from '#server/db/client'
import type { CoachingCall } from '#server/db/schema'
import type { VapiCallsClient } from '#server/integrations/vapi-calls'
import type { Clock } from '#server/lib/clock'
import type { CallsJobQueue } from './jobs'
import type { CallLines } from './lines'
import type { BusPublisher } from '#server/services/cluster-bus'
import type { Metrics } from '#server/observability/metrics'
import { eligibilityOf, loadCallPerson } from './person'
import type { RetryPlan } from './record'

export type CallsContext = {
  db: Db
  clock: Clock
  log: Logger
  jobs: CallsJobQueue
  /** The Vapi calls client: reads, ends and deletes calls (undefined without a key and an assistant). */
  vapi: VapiCallsClient | undefined
  /** The same client when it can place phone calls (it has a phone number), else undefined. */
  dialler: VapiCallsClient | undefined
  /** Where a phone call's live status and transcript lines are published (the dashboards' live card). */
  live: BusPublisher | undefined
  /** SMS_OPT_IN_NUMBER: where a START goes to bring calls back to a number that texted STOP. */
  smsNumber: string
  /** Vapi's lines (phone calls and calls in the app) and the pace of new phone calls. */
  lines: CallLines
  /** Whether the person may be called at `at` (their consent, plan, proven number and schedule). */
  eligibleAt(executor: DbExecutor, userId: string, at: Date): Promise<boolean>
  /** Dials, calls ended and lateness, counted. */
  metrics: Metrics
}

/** A call that is final, as the record has it after an observation. */
export type FinalCall = { call: CoachingCall; ended: FinalCallStatus | null; retry: RetryPlan | null }

/** The eligibility check of the context: the person as loaded now, judged at `at`. */
export function eligibilityCheck(clock: Clock): CallsContext['eligibleAt'] {
  return async (executor, userId, at) => {
    const person = await loadCallPerson(executor, userId, clock.now())
    return person !== null && eligibilityOf(person, at).eligible
  }
}
