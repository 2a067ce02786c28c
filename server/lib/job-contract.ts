/**
 * Job contracts (docs/decisions/022): a job's name and the zod schema of its payload, declared once
 * in the domain that owns the work (`server/services/<domain>/jobs.ts`) and read by both sides: the
 * service that enqueues a run and the job registry (server/jobs) that runs it. A queue is typed by
 * the contracts it takes, so a wrong name or payload is a compile error.
 */
import { z } from 'zod'

/** A job as its producers and its handler agree on it: the name, and the payload's schema. */
export type JobContract<N extends string = string, S extends z.ZodType = z.ZodType> = { readonly name: N; readonly payload: S }

/** Declares a job's contract; the name is lower-case words joined by "-". */
export function jobContract<const N extends string, S extends z.ZodType>(name: N, payload: S): JobContract<N, S> {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`job name "${name}": lower-case words joined by "-"`)
  return { name, payload }
}

/** The payload of a scheduled job: nothing. */
export const NO_PAYLOAD = z.object({}).strict()

/** What a producer hands over for the job named N among the contracts C (its schema's input). */
export type PayloadOf<C extends JobContract, N extends C['name'] = C['name']> = C extends JobContract ? (N extends C['name'] ? z.input<C['payload']> : never) : never

export type EnqueueOptions = {
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number
  /** While a run with this id is waiting, enqueueing it again adds nothing (as BullMQ does). */
  jobId?: string
}

/**
 * Where runs of the contracts' jobs are enqueued: `delayMs` runs it later, `jobId` adds it once while
 * one with that id waits. `remove` takes runs of a job that are still waiting (not started) out of
 * the queue by their ids; it resolves to how many it removed (a queue without it removes nothing).
 */
export type JobQueue<in C extends JobContract> = {
  enqueue: <N extends C['name']>(name: N, payload: PayloadOf<C, N>, options?: EnqueueOptions) => Promise<string>
  remove?: (name: C['name'], jobIds: readonly string[]) => Promise<number>
}
