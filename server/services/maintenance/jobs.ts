/** Housekeeping's job contracts (docs/decisions/022): read by their handlers (server/jobs/maintenance.ts). */
import { jobContract, NO_PAYLOAD } from '#server/lib/job-contract'

export const MAINTENANCE_JOBS = {
  /** Every day: deletes the records nobody can use any more. */
  cleanupExpired: jobContract('cleanup-expired', NO_PAYLOAD),
} as const
export type MaintenanceJob = (typeof MAINTENANCE_JOBS)[keyof typeof MAINTENANCE_JOBS]
