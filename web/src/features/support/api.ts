/**
 * Priority support as the web reads it (docs/decisions/077): the person's requests (the Help page)
 * and the support inbox (support staff), through the query cache.
 */
import { queryOptions } from '@tanstack/react-query'
import {
  CannedRepliesResponseSchema,
  CannedReplyResponseSchema,
  InboxTicketResponseSchema,
  SupportInboxResponseSchema,
  SupportTicketResponseSchema,
  SupportTicketsResponseSchema,
  type CreateSupportTicketBody,
  type SupportTicketStatus,
} from '#common/support'
import { z } from 'zod'
import { api } from '#web/lib/api-client'

export const supportKeys = {
  mine: ['support', 'mine'] as const,
  ticket: (id: string) => ['support', 'mine', id] as const,
  inbox: (status: string) => ['support', 'inbox', status] as const,
  inboxTicket: (id: string) => ['support', 'inbox', 'ticket', id] as const,
  canned: ['support', 'canned'] as const,
}

export const myTicketsQueryOptions = () =>
  queryOptions({ queryKey: supportKeys.mine, queryFn: ({ signal }) => api.get('/api/support/tickets', SupportTicketsResponseSchema, { signal }) })

export const myTicketQueryOptions = (id: string) =>
  queryOptions({
    queryKey: supportKeys.ticket(id),
    queryFn: async ({ signal }) => (await api.get(`/api/support/tickets/${encodeURIComponent(id)}`, SupportTicketResponseSchema, { signal })).ticket,
    retry: false,
  })

export const openTicket = async (body: CreateSupportTicketBody) => (await api.post('/api/support/tickets', body, SupportTicketResponseSchema)).ticket
export const addMessage = async (id: string, message: string) =>
  (await api.post(`/api/support/tickets/${encodeURIComponent(id)}/messages`, { message }, SupportTicketResponseSchema)).ticket

// ---- The support inbox ----

export type InboxFilter = SupportTicketStatus | 'all'

export const inboxQueryOptions = (status: InboxFilter) =>
  queryOptions({
    queryKey: supportKeys.inbox(status),
    queryFn: ({ signal }) => api.get(`/api/staff/support/tickets?status=${status}`, SupportInboxResponseSchema, { signal }),
    refetchInterval: 30_000,
  })

export const inboxTicketQueryOptions = (id: string) =>
  queryOptions({
    queryKey: supportKeys.inboxTicket(id),
    queryFn: async ({ signal }) => (await api.get(`/api/staff/support/tickets/${encodeURIComponent(id)}`, InboxTicketResponseSchema, { signal })).ticket,
    retry: false,
    // Each read is written to the member's audit log: asked again only when support opens it again.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })

const ticketPath = (id: string) => `/api/staff/support/tickets/${encodeURIComponent(id)}`

export const replyToTicket = async (id: string, body: { message: string; status: 'waiting_on_member' | 'resolved' }) =>
  (await api.post(`${ticketPath(id)}/replies`, body, InboxTicketResponseSchema)).ticket
export const addNote = async (id: string, note: string) => (await api.post(`${ticketPath(id)}/notes`, { note }, InboxTicketResponseSchema)).ticket
export const setTicketStatus = async (id: string, status: SupportTicketStatus) => (await api.put(`${ticketPath(id)}/status`, { status }, InboxTicketResponseSchema)).ticket

export const cannedRepliesQueryOptions = () =>
  queryOptions({
    queryKey: supportKeys.canned,
    queryFn: async ({ signal }) => (await api.get('/api/staff/support/canned-replies', CannedRepliesResponseSchema, { signal })).replies,
  })

export const createCannedReply = async (body: { title: string; body: string }) => (await api.post('/api/staff/support/canned-replies', body, CannedReplyResponseSchema)).reply
export const deleteCannedReply = (id: string) => api.delete(`/api/staff/support/canned-replies/${encodeURIComponent(id)}`, z.undefined())
