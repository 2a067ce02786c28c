/** Goal templates as the web reads them (docs/decisions/081): the member's list, a version, the coach's offer; the staff's list and writes. */
import { queryOptions } from '@tanstack/react-query'
import {
  GoalTemplateOfferResponseSchema,
  GoalTemplatesResponseSchema,
  GoalTemplateVersionResponseSchema,
  StaffGoalTemplateResponseSchema,
  StaffGoalTemplatesResponseSchema,
  type GoalTemplateBody,
} from '#common/goal-templates'
import { api } from '#web/lib/api-client'

export const goalTemplateKeys = {
  published: ['goal-templates', 'published'] as const,
  version: (id: string) => ['goal-templates', 'version', id] as const,
  offer: ['goal-templates', 'offer'] as const,
  staff: ['goal-templates', 'staff'] as const,
}

export const publishedTemplatesQueryOptions = () =>
  queryOptions({ queryKey: goalTemplateKeys.published, queryFn: async ({ signal }) => (await api.get('/api/goal-templates', GoalTemplatesResponseSchema, { signal })).templates })

/** A version never changes: read once. */
export const templateVersionQueryOptions = (versionId: string) =>
  queryOptions({
    queryKey: goalTemplateKeys.version(versionId),
    queryFn: async ({ signal }) => (await api.get(`/api/goal-templates/versions/${encodeURIComponent(versionId)}`, GoalTemplateVersionResponseSchema, { signal })).template,
    staleTime: Infinity,
    retry: false,
  })

export const templateOfferQueryOptions = () =>
  queryOptions({ queryKey: goalTemplateKeys.offer, queryFn: async ({ signal }) => (await api.get('/api/goal-templates/offer', GoalTemplateOfferResponseSchema, { signal })).offer })

export const answerTemplateOffer = async (offerId: string, answer: 'accept' | 'decline') =>
  (await api.post(`/api/goal-templates/offers/${encodeURIComponent(offerId)}/${answer}`, undefined, GoalTemplateOfferResponseSchema)).offer!

export const staffTemplatesQueryOptions = () =>
  queryOptions({ queryKey: goalTemplateKeys.staff, queryFn: async ({ signal }) => (await api.get('/api/staff/goal-templates', StaffGoalTemplatesResponseSchema, { signal })).templates })

export const createTemplate = async (body: GoalTemplateBody) => (await api.post('/api/staff/goal-templates', body, StaffGoalTemplateResponseSchema)).template
export const editTemplate = async (templateId: string, body: GoalTemplateBody) =>
  (await api.put(`/api/staff/goal-templates/${encodeURIComponent(templateId)}`, body, StaffGoalTemplateResponseSchema)).template
export const archiveTemplate = async (templateId: string) =>
  (await api.post(`/api/staff/goal-templates/${encodeURIComponent(templateId)}/archive`, undefined, StaffGoalTemplateResponseSchema)).template
export const offerTemplate = async (templateId: string, memberId: string) =>
  (await api.post(`/api/staff/goal-templates/${encodeURIComponent(templateId)}/offers`, { memberId }, GoalTemplateOfferResponseSchema)).offer!
