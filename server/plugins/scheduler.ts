import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { JOBS } from '../jobs/index'
import { startInProcessRunner, type DeferredQueue, type JobRunner, type Timers } from '../jobs/in-process'

declare module 'fastify' {
  interface FastifyInstance {
    /** The embedded job runner (no REDIS_URL), or null when BullMQ workers run the jobs. */
    jobRunner: JobRunner | null
  }
}

type SchedulerOptions = {
  timers?: Timers | undefined
  /** The services' queue, bound to the runner once it runs (no Redis). */
  queue?: DeferredQueue | undefined
}

/**
 * Without REDIS_URL the registry's jobs run inside the server (the contract's embedded default);
 * with Redis, `npm run worker` runs them through BullMQ and this plugin does nothing.
 */
export default fp<SchedulerOptions>(
  async (app, options) => {
    if (app.redis) {
      app.decorate('jobRunner', null)
      return
    }
    const runner = startInProcessRunner({ jobs: JOBS, services: app.services, log: app.log as Logger, timers: options.timers })
    options.queue?.bind(runner)
    app.decorate('jobRunner', runner)
    app.addHook('onClose', async () => runner.stop())
  },
  { name: 'scheduler', dependencies: ['context'] },
)
