/**
 * The jobs' contracts (docs/decisions/022): one name and payload schema per job, declared by its
 * domain, read by the service that enqueues it and by the registry that runs it. The type-level
 * half of this file is checked by `tsc` (each `@ts-expect-error` must meet an error); the
 * functions holding those lines are never called.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { JOBS, type AppJobQueue, type JobName, type PayloadOf, type RegistryJob } from '#server/jobs/index'
import type { BullmqEnqueuer } from '#server/jobs/bullmq'
import type { JobRunner } from '#server/jobs/in-process'
import { jobContract, type JobQueue } from '#server/lib/job-contract'
import { ACCOUNT_DATA_JOBS, type AccountDataJobQueue } from '#server/services/account-data'
import { ACCOUNTS_JOBS, type AccountsJobQueue } from '#server/services/accounts'
import { BILLING_JOBS } from '#server/services/billing'
import { CALLS_JOBS, type CallsJobQueue } from '#server/services/calls'
import { MAINTENANCE_JOBS } from '#server/services/maintenance'
import { MEMORY_JOBS } from '#server/services/memory'
import { REPORTS_JOBS, type ReportsJobQueue } from '#server/services/reports'
import { COACH_JOBS } from '#server/services/coach'
import { COACH_SESSIONS_JOBS } from '#server/services/coach-sessions'
import { SUPPORT_JOBS } from '#server/services/support'
import { TEXTS_JOBS, type TextsJobQueue } from '#server/services/texts'

const USER = '00000000-0000-4000-8000-000000000001'

/** Never called: what the compiler accepts and refuses of the app's queue. */
export function appQueueTypes(jobs: AppJobQueue) {
  void jobs.enqueue('send-email', { kind: 'confirm-email', userId: USER })
  void jobs.enqueue('vapi-event', { id: 7 }, { jobId: 'vapi-event-7' })
  void jobs.enqueue('place-call', { userId: USER, slot: 'daily', localDate: null, attempt: 0, dueAt: '2026-06-15T14:00:00Z' }, { delayMs: 1_000 })
  void jobs.enqueue('calls-tick', {})

  // @ts-expect-error no job has this name
  void jobs.enqueue('vapi-events', { id: 7 })
  // @ts-expect-error the payload of another job
  void jobs.enqueue('vapi-event', { reportId: USER })
  // @ts-expect-error a field of the wrong type
  void jobs.enqueue('vapi-event', { id: '7' })
  // @ts-expect-error a field missing
  void jobs.enqueue('send-text', {})
  // @ts-expect-error a kind of email that does not exist
  void jobs.enqueue('send-email', { kind: 'welcome', userId: USER })
  // @ts-expect-error a web call is never placed by a job
  void jobs.enqueue('place-call', { userId: USER, slot: 'web', localDate: null, attempt: 0, dueAt: '2026-06-15T14:00:00Z' })
  // @ts-expect-error a name that is only known to be a string
  void jobs.enqueue('send-text' as string, { id: USER })
  // @ts-expect-error an option the queues do not have
  void jobs.enqueue('calls-tick', {}, { priority: 1 })

  const name: JobName = 'weekly-report-delivery'
  const payload: PayloadOf<'weekly-report-delivery'> = { reportId: USER }
  void jobs.enqueue(name, payload)
  // @ts-expect-error a name outside the registry
  const unknown: JobName = 'send-sms'
  void unknown
  void jobs.remove?.('place-call', ['a'])
  // @ts-expect-error removing runs of a job that does not exist
  void jobs.remove?.('place-calls', ['a'])
}

/** Never called: each domain's queue takes its own jobs only, and the app's queue stands for every one of them. */
export function domainQueueTypes(app: AppJobQueue) {
  const accounts: AccountsJobQueue = app
  const calls: CallsJobQueue = app
  const texts: TextsJobQueue = app
  const reports: ReportsJobQueue = app
  const accountData: AccountDataJobQueue = app
  void accounts.enqueue('send-email', { kind: 'account-deleted', email: 'a@example.com' })
  // @ts-expect-error the accounts enqueue no calls
  void accounts.enqueue('place-call', { userId: USER, slot: 'daily', localDate: null, attempt: 0, dueAt: '2026-06-15T14:00:00Z' })
  void calls.enqueue('calls-consent-revoked', { userId: USER }, { delayMs: 30_000 })
  // @ts-expect-error the calls enqueue no texts
  void calls.enqueue('send-text', { id: USER })
  void texts.enqueue('send-text', { id: USER })
  void reports.enqueue('weekly-report-delivery', { reportId: USER })
  void accountData.enqueue('calls-cancel-deleted', { calls: [{ callId: USER, vapiCallId: null, dialledAt: null }] })
  void accountData.remove?.('send-text', ['text-1'])

}

/** Never called: a domain's queue cannot stand for the app's (it does not take every job). */
export function narrowQueueTypes(calls: CallsJobQueue) {
  // @ts-expect-error the calls' queue takes no email
  const widened: AppJobQueue = calls
  void widened
}

/** Never called: the runners are typed by the jobs they are given. */
export function runnerTypes(inProcess: JobRunner<RegistryJob>, bullmq: BullmqEnqueuer<RegistryJob>) {
  void inProcess.enqueue('cleanup-expired', {})
  // @ts-expect-error not a job of the registry
  void inProcess.enqueue('cleanup', {})
  void bullmq.enqueue('processor-deletion', { vapiCalls: [], vapiChatChains: [], vapiChats: [], twilioMessages: [] })
  // @ts-expect-error a field missing
  void bullmq.enqueue('processor-deletion', { vapiCalls: [] })
  // The app's queue is what the runners hand the services.
  const app: AppJobQueue = inProcess
  void app
}

describe('the job contracts', () => {
  const contracts = [ACCOUNTS_JOBS, ACCOUNT_DATA_JOBS, BILLING_JOBS, CALLS_JOBS, MAINTENANCE_JOBS, REPORTS_JOBS, SUPPORT_JOBS, COACH_JOBS, COACH_SESSIONS_JOBS, MEMORY_JOBS, TEXTS_JOBS].flatMap((area) => Object.values(area))

  it('gives every job of the registry its domain contract: the same name and the very same schema', () => {
    expect(JOBS.map((job) => job.name).sort()).toEqual(contracts.map((contract) => contract.name).sort())
    for (const job of JOBS) expect(job.payload).toBe(contracts.find((contract) => contract.name === job.name)?.payload)
  })

  it('names each job once', () => {
    expect(new Set(contracts.map((contract) => contract.name)).size).toBe(contracts.length)
  })

  it('takes lower-case names joined by "-" only', () => {
    expect(() => jobContract('Send Email', z.object({}))).toThrow(/lower-case/)
    expect(jobContract('send-email-2', z.object({})).name).toBe('send-email-2')
  })

  it('types a queue by the contracts it takes', () => {
    const seen: string[] = []
    const echo = jobContract('echo', z.object({ word: z.string() }).strict())
    const queue: JobQueue<typeof echo> = {
      enqueue: async (name, payload) => {
        seen.push(`${name}:${payload.word}`)
        return '1'
      },
    }
    void queue.enqueue(echo.name, { word: 'hi' })
    expect(seen).toEqual(['echo:hi'])
  })
})
