/** Elite's 1-on-1 sessions as the web reads them (docs/decisions/082): the member's side and the coach's. */
import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  AvailabilityResponseSchema,
  CoachSessionsResponseSchema,
  HoldResponseSchema,
  MemberSessionsResponseSchema,
  SessionResponseSchema,
  SlotsResponseSchema,
  type Availability,
  type SessionKind,
} from '#common/coach-sessions'
import { api } from '#web/lib/api-client'

export const sessionKeys = {
  mine: ['coach-sessions', 'mine'] as const,
  slots: (kind: SessionKind) => ['coach-sessions', 'slots', kind] as const,
  coach: ['coach-sessions', 'coach'] as const,
  availability: ['coach-sessions', 'availability'] as const,
}

export const mySessionsQueryOptions = () => queryOptions({ queryKey: sessionKeys.mine, queryFn: ({ signal }) => api.get('/api/coach/sessions', MemberSessionsResponseSchema, { signal }), retry: false })
export const slotsQueryOptions = (kind: SessionKind) =>
  queryOptions({ queryKey: sessionKeys.slots(kind), queryFn: ({ signal }) => api.get(`/api/coach/sessions/slots?kind=${kind}`, SlotsResponseSchema, { signal }) })

export const holdSlot = (body: { startsAt: string; kind: SessionKind; movesSessionId?: string | undefined }) => api.post('/api/coach/sessions/holds', body, HoldResponseSchema)
export const confirmHold = async (holdId: string) => (await api.post(`/api/coach/sessions/holds/${encodeURIComponent(holdId)}/confirm`, undefined, SessionResponseSchema)).session
export const cancelSession = async (sessionId: string) => (await api.post(`/api/coach/sessions/${encodeURIComponent(sessionId)}/cancel`, undefined, SessionResponseSchema)).session

export const coachSessionsQueryOptions = () =>
  queryOptions({ queryKey: sessionKeys.coach, queryFn: async ({ signal }) => (await api.get('/api/staff/coach/sessions', CoachSessionsResponseSchema, { signal })).sessions })
export const availabilityQueryOptions = () => queryOptions({ queryKey: sessionKeys.availability, queryFn: ({ signal }) => api.get('/api/staff/coach/availability', AvailabilityResponseSchema, { signal }) })
export const saveAvailability = (body: Availability) => api.put('/api/staff/coach/availability', body, AvailabilityResponseSchema)
const sessionPath = (id: string) => `/api/staff/coach/sessions/${encodeURIComponent(id)}`
export const setMeeting = (id: string, body: { meeting: 'phone' | 'video'; videoUrl: string | null }) => api.put(`${sessionPath(id)}/meeting`, body, z.undefined())
export const markNoShow = (id: string) => api.post(`${sessionPath(id)}/no-show`, undefined, z.undefined())
export const writeSummary = (id: string, body: { summary: string; commitments: string[] }) => api.put(`${sessionPath(id)}/summary`, body, z.undefined())

/** "Tuesday, March 9" in a zone. */
export const dayLabel = (iso: string, timeZone: string) => new Date(iso).toLocaleDateString('en-US', { timeZone, weekday: 'long', month: 'long', day: 'numeric' })
/** "3:00 PM" in a zone. */
export const timeLabel = (iso: string, timeZone: string) => new Date(iso).toLocaleTimeString('en-US', { timeZone, hour: 'numeric', minute: '2-digit' })
