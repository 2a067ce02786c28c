/** Elite's human coach as the web reads it (docs/decisions/078): the member's coach, the coach's workspace, and the admins' view. */
import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  AssignCoachResponseSchema,
  CoachesResponseSchema,
  CoachMemberDetailSchema,
  CoachMembersResponseSchema,
  CoachNoteResponseSchema,
  CoachProfileSchema,
  CoachThreadResponseSchema,
  MemberMessageResponseSchema,
  MemberThreadResponseSchema,
  MyCoachResponseSchema,
  SendCoachMessageResponseSchema,
  type UpdateCoachProfileBody,
} from '#common/coach'
import { api } from '#web/lib/api-client'

export const coachKeys = {
  mine: ['coach', 'mine'] as const,
  profile: ['coach', 'profile'] as const,
  members: ['coach', 'members'] as const,
  member: (id: string) => ['coach', 'members', id] as const,
  coaches: ['coach', 'admin', 'coaches'] as const,
}

export const myCoachQueryOptions = () => queryOptions({ queryKey: coachKeys.mine, queryFn: ({ signal }) => api.get('/api/coach', MyCoachResponseSchema, { signal }) })

export const coachProfileQueryOptions = () => queryOptions({ queryKey: coachKeys.profile, queryFn: ({ signal }) => api.get('/api/staff/coach/profile', CoachProfileSchema, { signal }) })
export const updateCoachProfile = (body: UpdateCoachProfileBody) => api.put('/api/staff/coach/profile', body, CoachProfileSchema)
/** The file itself as the body, under its own type; the answer is the profile with its new photoUrl. */
export const uploadCoachPhoto = (file: File) => api.put('/api/staff/coach/profile/photo', file, CoachProfileSchema)
export const removeCoachPhoto = () => api.delete('/api/staff/coach/profile/photo', CoachProfileSchema)

export const coachMembersQueryOptions = () =>
  queryOptions({ queryKey: coachKeys.members, queryFn: async ({ signal }) => (await api.get('/api/staff/coach/members', CoachMembersResponseSchema, { signal })).members })

export const coachMemberQueryOptions = (id: string) =>
  queryOptions({
    queryKey: coachKeys.member(id),
    queryFn: ({ signal }) => api.get(`/api/staff/coach/members/${encodeURIComponent(id)}`, CoachMemberDetailSchema, { signal }),
    retry: false,
    // Each read is written to the member's audit log: read again only when the coach opens them again.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })

const notesPath = (memberId: string) => `/api/staff/coach/members/${encodeURIComponent(memberId)}/notes`
export const addCoachNote = async (memberId: string, body: string) => (await api.post(notesPath(memberId), { body }, CoachNoteResponseSchema)).note
export const deleteCoachNote = (memberId: string, noteId: string) => api.delete(`${notesPath(memberId)}/${encodeURIComponent(noteId)}`, z.undefined())

export const coachesQueryOptions = () => queryOptions({ queryKey: coachKeys.coaches, queryFn: ({ signal }) => api.get('/api/staff/admin/coaches', CoachesResponseSchema, { signal }) })
export const setCoachCapacity = (coachId: string, maxMembers: number) =>
  api.put(`/api/staff/admin/coaches/${encodeURIComponent(coachId)}/capacity`, { maxMembers }, CoachesResponseSchema)
export const assignCoach = (memberEmail: string, coachId: string) => api.post('/api/staff/admin/coach-assignments', { memberEmail, coachId }, AssignCoachResponseSchema)

// ---- The message thread (docs/decisions/079) ----

export const threadKeys = { mine: ['coach', 'thread'] as const, member: (id: string) => ['coach', 'thread', id] as const }

export const myThreadQueryOptions = () => queryOptions({ queryKey: threadKeys.mine, queryFn: ({ signal }) => api.get('/api/coach/messages', CoachThreadResponseSchema, { signal }), retry: false })
export const sendMyMessage = (body: string) => api.post('/api/coach/messages', { body }, SendCoachMessageResponseSchema)

export const memberThreadQueryOptions = (memberId: string) =>
  queryOptions({
    queryKey: threadKeys.member(memberId),
    queryFn: async ({ signal }) => (await api.get(`/api/staff/coach/members/${encodeURIComponent(memberId)}/messages`, MemberThreadResponseSchema, { signal })).messages,
    retry: false,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })
export const sendMemberMessage = async (memberId: string, body: string) =>
  (await api.post(`/api/staff/coach/members/${encodeURIComponent(memberId)}/messages`, { body }, MemberMessageResponseSchema)).message
