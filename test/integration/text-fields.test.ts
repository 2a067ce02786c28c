import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyGoalsForm } from '#common/goals'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

/**
 * Every text field of every route refuses what PostgreSQL cannot store (a NUL character, an
 * unpaired surrogate) with 400 naming the field, never a 500. The table holds a request each
 * operation accepts; every string in it is replaced in turn. The table must cover every operation
 * of the OpenAPI document that takes input, so a new route cannot be forgotten.
 */
let database: TestDatabase
let app: FastifyInstance
let member: SignedIn
/** Staff with every role the staff routes ask for, signed in with two-factor sign-in. */
let staff: StaffMember

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  member = await signedInUser(app, { paid: 'premium' })
  staff = await signedInStaff(app, ['support', 'admin', 'operator', 'coach'])
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Case = {
  /** The OpenAPI operation, e.g. "POST /api/auth/login". */
  operation: string
  /** Path parameters, by name. */
  params?: Record<string, string>
  query?: Record<string, string>
  body?: unknown
  signedIn?: boolean
  /** Sent by the staff member (a staff route: anyone else is a 404 before validation). */
  asStaff?: boolean
  /** The body is form-encoded (UTF-8: a lone surrogate cannot be sent, so only NUL is tried). */
  form?: boolean
}

const UUID = '2b1f3c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f'
const now = new Date().toISOString()
const password = 'lantern-harbor-velvet-42'

const CASES: Case[] = [
  {
    operation: 'POST /api/auth/signup',
    body: {
      fullName: 'Text Person',
      email: 'text.person@example.com',
      phoneNumber: '(202) 523-4567',
      password,
      confirmPassword: password,
      communicationConsent: true,
      termsAccepted: true,
      partnerProgram: 'GENERAL',
    },
  },
  { operation: 'POST /api/auth/login', body: { email: 'text.person@example.com', password } },
  { operation: 'POST /api/auth/confirm-email', body: { token: 'abcdefghijklmnopqrstuvwxyz234567' } },
  { operation: 'POST /api/auth/forgot-password', body: { email: 'text.person@example.com' } },
  { operation: 'POST /api/auth/reset-password', body: { token: 'abcdefghijklmnopqrstuvwxyz234567', password, confirmPassword: password } },
  { operation: 'POST /api/billing/embedded-checkout', signedIn: true, body: { plan: 'basic', selectedPlan: 'monthly', attempt: 'attempt-12345' } },
  { operation: 'GET /api/billing/checkout-session/{sessionId}', signedIn: true, params: { sessionId: 'cs_test_123' } },
  { operation: 'POST /api/billing/testing-activation', signedIn: true, body: { plan: 'basic' } },
  { operation: 'POST /api/opt-in', signedIn: true, body: { consentText: 'I agree to receive texts.' } },
  {
    operation: 'PUT /api/goals',
    signedIn: true,
    body: {
      ...emptyGoalsForm(),
      workCareer: { company: null, industry: null, role: 'Designer' },
      specificGoals: { goal90Days: 'Run a 5k', goal12Months: 'Ship', goal5Years: 'Lead', obstacles: 'Time' },
      templateVersionId: UUID,
    },
  },
  { operation: 'GET /api/calls/{id}', signedIn: true, params: { id: UUID } },
  {
    operation: 'PUT /api/calls/schedule',
    signedIn: true,
    body: { dailyCallTime: '07:30', timeZone: 'America/New_York', eveningCallTime: '19:30', pausedUntil: null, callsEnabled: true },
  },
  { operation: 'GET /api/courses/{courseId}', signedIn: true, params: { courseId: 'sales-foundations' } },
  { operation: 'POST /api/courses/{courseId}/enroll', signedIn: true, params: { courseId: 'sales-foundations' } },
  { operation: 'POST /api/lessons/{lessonId}/complete', signedIn: true, params: { lessonId: UUID } },
  { operation: 'POST /api/lessons/{lessonId}/open', signedIn: true, params: { lessonId: UUID } },
  { operation: 'POST /api/quizzes/{quizId}/answer', signedIn: true, params: { quizId: UUID }, body: { answer: 'Listen first' } },
  { operation: 'GET /api/conversations', signedIn: true, query: { search: 'plan', archived: 'true' } },
  {
    operation: 'POST /api/conversations',
    signedIn: true,
    body: { title: 'Weekly plan', content: [{ id: 'm1', text: 'Hello coach', sender: 'user', timestamp: now }] },
  },
  { operation: 'GET /api/conversations/{id}', signedIn: true, params: { id: UUID }, query: { before: 'm1' } },
  { operation: 'PATCH /api/conversations/{id}', signedIn: true, params: { id: UUID }, body: { title: 'Renamed' } },
  { operation: 'DELETE /api/conversations/{id}', signedIn: true, params: { id: UUID } },
  { operation: 'POST /api/conversations/{id}/reopen', signedIn: true, params: { id: UUID } },
  {
    operation: 'PUT /api/conversations/{id}/content',
    signedIn: true,
    params: { id: UUID },
    body: { content: [{ id: 'm2', text: 'More', sender: 'user', timestamp: now }] },
  },
  { operation: 'POST /api/conversations/{id}/messages', signedIn: true, params: { id: UUID }, body: { text: 'Hi', id: randomUUID() } },
  { operation: 'PUT /api/consent/{channel}', signedIn: true, params: { channel: 'texts' }, body: { enabled: false } },
  { operation: 'POST /api/commitments/{id}/done', signedIn: true, params: { id: UUID } },
  { operation: 'GET /api/reports/{week}', signedIn: true, params: { week: '2026-11-22' } },
  { operation: 'GET /api/progress', signedIn: true, query: { weeks: '12' } },
  { operation: 'GET /api/reports/unsubscribe', query: { token: 'abc.def' } },
  { operation: 'POST /api/reports/unsubscribe', query: { token: 'abc.def' }, body: { 'List-Unsubscribe': 'One-Click' }, form: true },
  { operation: 'PATCH /api/account/profile', signedIn: true, body: { fullName: 'Text Person' } },
  { operation: 'POST /api/account/email', signedIn: true, body: { newEmail: 'text.moved@example.com', currentPassword: password } },
  { operation: 'POST /api/account/email/confirm', body: { token: 'abcdefghijklmnopqrstuvwxyz234567' } },
  { operation: 'POST /api/account/phone', signedIn: true, body: { phoneNumber: '(202) 576-4321', currentPassword: password } },
  { operation: 'POST /api/account/phone/confirm', signedIn: true, body: { code: '123456' } },
  { operation: 'POST /api/account/phone/verification/confirm', signedIn: true, body: { code: '123456' } },
  { operation: 'POST /api/account/password', signedIn: true, body: { currentPassword: password, newPassword: 'copper-meadow-whistle-9', confirmPassword: 'copper-meadow-whistle-9' } },
  { operation: 'POST /api/account/delete', signedIn: true, body: { password, email: 'text.person@example.com' } },
  { operation: 'DELETE /api/account/sessions/{id}', signedIn: true, params: { id: 'abcdefghijklmnopqrstuvwxyz234567' } },
  { operation: 'POST /api/auth/two-factor', signedIn: true, body: { code: '123456' } },
  { operation: 'POST /api/account/two-factor/setup', signedIn: true, body: { currentPassword: password } },
  { operation: 'POST /api/account/two-factor', signedIn: true, body: { code: '123456' } },
  { operation: 'POST /api/account/two-factor/disable', signedIn: true, body: { currentPassword: password, code: '123456' } },
  { operation: 'POST /api/account/two-factor/recovery-codes', signedIn: true, body: { code: '123456' } },
  { operation: 'POST /api/ops/webhook-events/{id}/retry', asStaff: true, params: { id: '1' } },
  { operation: 'POST /api/support/tickets', signedIn: true, body: { topic: 'other', message: 'Hello support', context: { page: '/goal-intake', errorCode: 'INTERNAL' } } },
  { operation: 'GET /api/support/tickets/{id}', signedIn: true, params: { id: UUID } },
  { operation: 'POST /api/support/tickets/{id}/messages', signedIn: true, params: { id: UUID }, body: { message: 'One more thing' } },
  { operation: 'GET /api/staff/support/tickets', asStaff: true, query: { status: 'open' } },
  { operation: 'GET /api/staff/support/tickets/{id}', asStaff: true, params: { id: UUID } },
  { operation: 'POST /api/staff/support/tickets/{id}/replies', asStaff: true, params: { id: UUID }, body: { message: 'Here is how', status: 'resolved' } },
  { operation: 'POST /api/staff/support/tickets/{id}/notes', asStaff: true, params: { id: UUID }, body: { note: 'Asked twice' } },
  { operation: 'PUT /api/staff/support/tickets/{id}/status', asStaff: true, params: { id: UUID }, body: { status: 'open' } },
  { operation: 'POST /api/staff/support/canned-replies', asStaff: true, body: { title: 'Call time', body: 'Open Call schedule.' } },
  { operation: 'PUT /api/staff/support/canned-replies/{id}', asStaff: true, params: { id: UUID }, body: { title: 'Call time', body: 'Open Call schedule.' } },
  { operation: 'DELETE /api/staff/support/canned-replies/{id}', asStaff: true, params: { id: UUID } },
  {
    operation: 'PUT /api/staff/coach/profile',
    asStaff: true,
    body: { bio: 'I coach habits.', timeZone: 'America/Chicago', workingDays: [1, 2, 3], startTime: '08:00', endTime: '16:00', replyWithinHours: 4 },
  },
  { operation: 'GET /api/staff/coach/members/{memberId}', asStaff: true, params: { memberId: UUID } },
  { operation: 'POST /api/staff/coach/members/{memberId}/notes', asStaff: true, params: { memberId: UUID }, body: { body: 'Prefers mornings' } },
  { operation: 'PUT /api/staff/coach/members/{memberId}/notes/{noteId}', asStaff: true, params: { memberId: UUID, noteId: UUID }, body: { body: 'Prefers mornings' } },
  { operation: 'DELETE /api/staff/coach/members/{memberId}/notes/{noteId}', asStaff: true, params: { memberId: UUID, noteId: UUID } },
  { operation: 'PUT /api/staff/admin/coaches/{coachId}/capacity', asStaff: true, params: { coachId: UUID }, body: { maxMembers: 10 } },
  { operation: 'POST /api/staff/admin/coach-assignments', asStaff: true, body: { memberEmail: 'text.person@example.com', coachId: UUID } },
  { operation: 'POST /api/staff/admin/staff', asStaff: true, body: { email: 'new.staff@example.com', fullName: 'New Staff', roles: ['coach'] } },
  { operation: 'POST /api/staff/admin/staff/revoke', asStaff: true, body: { email: 'new.staff@example.com', roles: ['coach'] } },
  { operation: 'POST /api/coach/messages', signedIn: true, body: { body: 'Can we talk?' } },
  { operation: 'GET /api/coach/sessions/slots', signedIn: true, query: { kind: 'monthly' } },
  { operation: 'POST /api/coach/sessions/holds', signedIn: true, body: { startsAt: '2030-01-07T16:00:00Z', kind: 'monthly', movesSessionId: UUID } },
  { operation: 'POST /api/coach/sessions/holds/{holdId}/confirm', signedIn: true, params: { holdId: UUID } },
  { operation: 'POST /api/coach/sessions/{sessionId}/cancel', signedIn: true, params: { sessionId: UUID } },
  {
    operation: 'PUT /api/staff/coach/availability',
    asStaff: true,
    body: { weekly: [{ weekday: 1, startTime: '09:00', endTime: '12:00' }], exceptions: [{ date: '2030-01-07', kind: 'extra', startTime: '13:00', endTime: '14:00' }], bufferMinutes: 15, minNoticeHours: 24, horizonDays: 30 },
  },
  { operation: 'PUT /api/staff/coach/sessions/{sessionId}/meeting', asStaff: true, params: { sessionId: UUID }, body: { meeting: 'video', videoUrl: 'https://meet.example.com/dana' } },
  { operation: 'POST /api/staff/coach/sessions/{sessionId}/no-show', asStaff: true, params: { sessionId: UUID } },
  { operation: 'PUT /api/staff/coach/members/{memberId}/plan', asStaff: true, params: { memberId: UUID }, body: { goal90Days: 'Run a 10k', obstacles: 'Rain', dailyCallTime: '07:30' } },
  { operation: 'PUT /api/staff/coach/sessions/{sessionId}/summary', asStaff: true, params: { sessionId: UUID }, body: { summary: 'We planned the week.', commitments: ['Walk daily'] } },
  { operation: 'GET /api/coaches/{coachId}/photo', signedIn: true, params: { coachId: UUID }, query: { v: '0123456789abcdef' } },
  { operation: 'GET /api/staff/coach/members/{memberId}/messages', asStaff: true, params: { memberId: UUID } },
  { operation: 'POST /api/staff/coach/members/{memberId}/messages', asStaff: true, params: { memberId: UUID }, body: { body: 'Yes' } },
  { operation: 'GET /api/goal-templates/versions/{versionId}', signedIn: true, params: { versionId: UUID } },
  { operation: 'POST /api/goal-templates/offers/{offerId}/accept', signedIn: true, params: { offerId: UUID } },
  { operation: 'POST /api/goal-templates/offers/{offerId}/decline', signedIn: true, params: { offerId: UUID } },
  {
    operation: 'POST /api/staff/goal-templates',
    asStaff: true,
    body: { name: 'Spring 10k', audience: 'New runners', targets: { fitness: { score: 8, focus: ['exercise_routine'] } }, ninetyDayGoal: 'Run 10 km', obstacles: ['Rain'], firstCommitments: ['Run twice'] },
  },
  {
    operation: 'PUT /api/staff/goal-templates/{templateId}',
    asStaff: true,
    params: { templateId: UUID },
    body: { name: 'Spring 10k', audience: 'New runners', targets: { fitness: { score: 8, focus: ['exercise_routine'] } }, ninetyDayGoal: 'Run 10 km', obstacles: ['Rain'], firstCommitments: ['Run twice'] },
  },
  { operation: 'POST /api/staff/goal-templates/{templateId}/archive', asStaff: true, params: { templateId: UUID } },
  { operation: 'POST /api/staff/goal-templates/{templateId}/offers', asStaff: true, params: { templateId: UUID }, body: { memberId: UUID } },
  { operation: 'PATCH /api/memory/facts/{factId}', signedIn: true, params: { factId: UUID }, body: { statement: 'Runs on Sundays', subject: 'fitness' } },
  { operation: 'DELETE /api/memory/facts/{factId}', signedIn: true, params: { factId: UUID } },
  { operation: 'POST /api/webhooks/sms', body: { From: '+12025550100', To: '+15555550123', Body: 'START', MessageSid: 'SM0123456789abcdef0123456789abcdef' }, form: true },
  { operation: 'POST /api/webhooks/sms/status', body: { MessageSid: 'SM0123456789abcdef0123456789abcdef', MessageStatus: 'undelivered', ErrorCode: '30006' }, form: true },
]

/** Operations whose body is raw bytes (a webhook's, verified by a signature over them; a coach's photo): no parsed text reaches a schema. */
const RAW_BODIES = new Set(['POST /api/webhooks/stripe', 'POST /api/webhooks/vapi', 'PUT /api/staff/coach/profile/photo'])
/** Operations whose input holds no text at all (a boolean body): nothing PostgreSQL could refuse. */
const NO_TEXT = new Set(['DELETE /api/memory', 'PUT /api/memory/pause'])

/** Every string in a JSON value, by its path ("content.0.text"). */
function stringPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value === 'string') return [path]
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...path, String(index)]))
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]))
  return []
}

function withValue(value: unknown, path: string[], replacement: string): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path as [string, ...string[]]
  if (Array.isArray(value)) return value.map((item, index) => (String(index) === head ? withValue(item, rest, replacement) : item))
  return { ...(value as Record<string, unknown>), [head]: withValue((value as Record<string, unknown>)[head], rest, replacement) }
}

let client = 0
function request(testCase: Case, overrides: Partial<Pick<Case, 'params' | 'query' | 'body'>> = {}): InjectOptions {
  const [method, template] = testCase.operation.split(' ') as [InjectOptions['method'], string]
  const params = overrides.params ?? testCase.params ?? {}
  const url = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))
  client += 1
  return {
    method,
    url,
    query: overrides.query ?? testCase.query,
    payload: testCase.form
      ? new URLSearchParams((overrides.body ?? testCase.body) as Record<string, string>).toString()
      : ((overrides.body ?? testCase.body) as InjectOptions['payload']),
    headers: {
      ...(testCase.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      origin: app.config.appOrigin,
      // Each request from its own address: the per-IP auth limits measure nothing here.
      'x-forwarded-for': `10.77.${client >> 8}.${client & 255}`,
      ...(testCase.signedIn ? { cookie: member.cookie } : {}),
      ...(testCase.asStaff ? { cookie: staff.cookie } : {}),
    },
  }
}

describe('text that PostgreSQL cannot store', () => {
  it('the table covers every operation that takes input', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown }>>
    }>()
    const withInput = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    )
    expect(withInput.filter((operation) => !RAW_BODIES.has(operation) && !NO_TEXT.has(operation)).sort()).toEqual(CASES.map((c) => c.operation).sort())
  })

  it.each(CASES.map((c) => [c.operation, c] as const))('%s: 400 naming each text field, never a 500', async (_name, testCase) => {
    const results: Array<{ field: string; status: number; named: string | undefined }> = []
    const record = async (field: string, options: InjectOptions) => {
      const response = await app.inject(options)
      results.push({ field, status: response.statusCode, named: response.json<{ error?: { field?: string } }>().error?.field })
    }
    for (const path of stringPaths(testCase.body ?? {})) {
      const field = path.join('.')
      await record(field, request(testCase, { body: withValue(testCase.body, path, 'before\u0000after') }))
      if (!testCase.form) await record(field, request(testCase, { body: withValue(testCase.body, path, 'broken \uD83D text') }))
    }
    for (const name of Object.keys(testCase.query ?? {})) {
      await record(name, request(testCase, { query: { ...testCase.query, [name]: 'before\u0000after' } }))
    }
    for (const name of Object.keys(testCase.params ?? {})) {
      await record(name, request(testCase, { params: { ...testCase.params, [name]: 'before\u0000after' } }))
    }
    expect(results.length).toBeGreaterThan(0)
    expect(results).toEqual(results.map(({ field }) => ({ field, status: 400, named: field })))
  })
})
