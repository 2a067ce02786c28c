/** The staff calls, each response validated with the shared schema: the zod half of api.ts. */
import { StaffMeResponseSchema, type StaffMe } from '#common/staff'
import { api } from '#web/lib/api-client'

export async function fetchStaffMe(signal?: AbortSignal): Promise<StaffMe> {
  return api.get('/api/staff/me', StaffMeResponseSchema, { signal })
}
