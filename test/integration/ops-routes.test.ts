/**
 * /api/ops (docs/decisions/075): the snapshot for an operator signed in with two-factor sign-in, and
 * 'Retry' of a parked webhook message, written to the audit log with it. (Every other caller's
 * refusal is walked by the staff guard's test over every staff route.)
 */
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OpsSnapshotSchema } from '#common/ops'
import { auditEvents, vapiWebhookEvents } from '#server/db/schema'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let operator: StaffMember
const clock = fakeClock(new Date('2026-12-01T12:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
  operator = await signedInStaff(app, ['operator'], { fullName: 'Olu Operator' })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

async function parkedEvent(key: string): Promise<number> {
  const [row] = await database.db
    .insert(vapiWebhookEvents)
    .values({ dedupeKey: key, vapiCallId: `vapi-${key}`, type: 'status-update', payload: {}, receivedAt: clock.now(), attempts: 10, lastError: 'TypeError', deadAt: clock.now() })
    .returning({ id: vapiWebhookEvents.id })
  return row!.id
}

describe('GET /api/ops/status', () => {
  it('gives an operator the snapshot, not to be cached', async () => {
    const id = await parkedEvent('ops-status-1')
    const response = await app.inject({ method: 'GET', url: '/api/ops/status', headers: operator.headers })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    const snapshot = OpsSnapshotSchema.parse(response.json())
    expect(snapshot.at).toBe(clock.now().toISOString())
    expect(snapshot.webhooks.parked.map((event) => event.id)).toContain(id)
    expect(snapshot.lines).toMatchObject({ limit: 10 })
  })

  it('is a 404 to a member and asks an operator without two-factor sign-in to set it up', async () => {
    const member = await signedInUser(app, { paid: 'elite' })
    expect((await app.inject({ method: 'GET', url: '/api/ops/status', headers: member.headers })).statusCode).toBe(404)
    const unverified = await signedInStaff(app, ['operator'], { twoFactor: false })
    const refused = await app.inject({ method: 'GET', url: '/api/ops/status', headers: unverified.headers })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ error: { code: 'TWO_FACTOR_REQUIRED' } })
  })
})

describe('POST /api/ops/webhook-events/:id/retry', () => {
  it('puts a parked message back once, and the audit log says who did it', async () => {
    const id = await parkedEvent('ops-retry-1')
    const retried = await app.inject({ method: 'POST', url: `/api/ops/webhook-events/${id}/retry`, headers: operator.headers })
    expect(retried.statusCode).toBe(200)
    expect(retried.json()).toEqual({ retried: true })
    const [row] = await database.db.select().from(vapiWebhookEvents).where(eq(vapiWebhookEvents.id, id))
    expect(row).toMatchObject({ deadAt: null, lastError: null })
    const audited = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'webhook_event_retried'), eq(auditEvents.targetId, String(id))))
    expect(audited).toHaveLength(1)
    expect(audited[0]).toMatchObject({ actorKind: 'user', actorUserId: operator.user.id, subjectUserId: null, targetType: 'webhook_event' })

    // Not parked any more: nothing to retry, and nothing written.
    const again = await app.inject({ method: 'POST', url: `/api/ops/webhook-events/${id}/retry`, headers: operator.headers })
    expect(again.statusCode).toBe(404)
    expect(again.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'id' } })
    expect(await database.db.select().from(auditEvents).where(eq(auditEvents.targetId, String(id)))).toHaveLength(1)
  })

  it('refuses an id that is not a whole number, naming it', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/ops/webhook-events/abc/retry', headers: operator.headers })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ error: { field: 'id' } })
  })
})
