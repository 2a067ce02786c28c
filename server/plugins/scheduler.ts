import { Cron } from 'croner'
import fp from 'fastify-plugin'
import { CLEANUP_CRON } from '../jobs/maintenance'
import { deleteExpiredRecords } from '../services/maintenance'

/**
 * Without REDIS_URL the scheduled work runs inside the server (the contract's embedded default);
 * with Redis, BullMQ job schedulers in `npm run worker` own it and this plugin does nothing.
 */
export default fp(
  async (app) => {
    if (app.redis) return
    const jobs: Cron[] = [
      new Cron(CLEANUP_CRON, { timezone: 'UTC', protect: true, catch: (err) => app.log.error({ err }, 'cleanup failed') }, async () => {
        const result = await deleteExpiredRecords(app.db)
        app.log.info(result, 'expired records deleted')
      }),
    ]
    app.addHook('onClose', async () => {
      for (const job of jobs) job.stop()
    })
  },
  { name: 'scheduler', dependencies: ['context'] },
)
