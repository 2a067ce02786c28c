/**
 * Every job's contract (docs/decisions/022), gathered from the domains that declare them: the one
 * type the app's job queue is typed by. The registry (index.ts) gives each a handler; a contract
 * without one, or a job without a contract, does not compile.
 */
import type { JobContract, JobQueue, PayloadOf as ContractPayload } from '../lib/job-contract'
import type { AccountDataJob } from '#server/services/account-data'
import type { AccountsJob } from '#server/services/accounts'
import type { BillingJob } from '#server/services/billing'
import type { CallsJob } from '#server/services/calls'
import type { MaintenanceJob } from '#server/services/maintenance'
import type { MemoryJob } from '#server/services/memory'
import type { ReportsJob } from '#server/services/reports'
import type { SupportJob } from '#server/services/support'
import type { CoachJob } from '#server/services/coach'
import type { CoachSessionsJob } from '#server/services/coach-sessions'
import type { TextsJob } from '#server/services/texts'

export type { JobContract, JobQueue } from '../lib/job-contract'

/** The contract of every job the app runs. */
export type AppJob = AccountsJob | AccountDataJob | BillingJob | CallsJob | MaintenanceJob | ReportsJob | SupportJob | CoachJob | CoachSessionsJob | MemoryJob | TextsJob
export type JobName = AppJob['name']
/** What `enqueue(name, payload)` takes for the job named N. */
export type PayloadOf<N extends JobName> = ContractPayload<AppJob, N>
/** The app's job queue: BullMQ with Redis, the in-process runner without (createServices hands it to the domains). */
export type AppJobQueue = JobQueue<AppJob>

/** True when the two sets of contracts name the same jobs (used by the registry's completeness check). */
export type SameJobs<A extends JobContract, B extends JobContract> = [Exclude<A['name'], B['name']>, Exclude<B['name'], A['name']>] extends [never, never] ? true : false
