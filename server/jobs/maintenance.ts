/** The maintenance job contract, shared by the producer (server or worker start) and the worker. */
export const MAINTENANCE_QUEUE = 'maintenance'
export const CLEANUP_JOB = 'cleanup-expired'
export const CLEANUP_SCHEDULER_ID = 'cleanup-expired-daily'
/** Every day at 03:17 UTC (off the hour, away from everyone else's cron). */
export const CLEANUP_CRON = '17 3 * * *'
