/**
 * What your coach remembers (docs/decisions/083) through its routes, on a real PostgreSQL: the
 * person sees their current facts with where each came from and their episodes, corrects a fact
 * (the correction supersedes it, in the view and in the coach brief), deletes one for good (the
 * same source processed again never brings it back) or everything, and pauses the memory (the
 * brief has no facts and nothing new is kept). Another person's fact is a 404; bad input a 400
 * naming the field.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorBodySchema } from '#common/errors'
import { MemoryViewSchema, type MemorySubject } from '#common/memory'
import { memoryEpisodes, memoryFacts, memoryForgotten } from '#server/db/schema'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
const clock = fakeClock(new Date('2027-03-12T15:00:00Z'))
/** Tuesday, March 9, 2027, mid-morning in New York (the profile's default zone). */
const TUESDAY = '2027-03-09T15:00:00Z'

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Learned = { statement: string; subject: MemorySubject }

/** One call's extraction, as the call report hands it to the memory. */
async function recordCall(user: SignedIn, learned: Learned[], options: { callId?: string; key?: string; at?: string; summary?: string } = {}) {
  const callId = options.callId ?? randomUUID()
  return app.services.memory.record({
    userId: user.user.id,
    channel: 'call',
    sourceId: callId,
    key: options.key ?? callId,
    occurredAt: options.at ?? TUESDAY,
    summary: options.summary ?? 'They talked about the week ahead.',
    learned: learned.map((fact) => ({ ...fact, stated: true })),
    changed: [],
  })
}

async function view(user: SignedIn) {
  const response = await app.inject({ method: 'GET', url: '/api/memory', headers: user.headers })
  expect(response.statusCode).toBe(200)
  expect(response.headers['cache-control']).toBe('no-store')
  return MemoryViewSchema.parse(response.json())
}

async function briefFacts(user: SignedIn): Promise<string[]> {
  return ((await app.services.memory.brief(user.user.id))?.facts ?? []).map((fact) => fact.statement)
}

function errorOf(response: { json(): unknown }) {
  return ErrorBodySchema.parse(response.json()).error
}

describe('GET /api/memory', () => {
  it('shows each current fact with its subject and where it came from, and each episode', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    expect(await view(user)).toEqual({ paused: false, facts: [], episodes: [] })
    const callId = randomUUID()
    await recordCall(
      user,
      [
        { statement: 'Training for a 10k in April', subject: 'fitness' },
        { statement: 'Their daughter starts school on Monday', subject: 'family' },
      ],
      { callId, summary: 'They planned their training around the school run.' },
    )
    const memory = await view(user)
    expect(memory.paused).toBe(false)
    expect(memory.facts.map(({ statement, subject, source, origin }) => ({ statement, subject, source, origin })).sort((a, b) => a.subject.localeCompare(b.subject))).toEqual([
      { statement: 'Their daughter starts school on Monday', subject: 'family', source: 'call', origin: 'from your call on Tue, Mar 9' },
      { statement: 'Training for a 10k in April', subject: 'fitness', source: 'call', origin: 'from your call on Tue, Mar 9' },
    ])
    expect(memory.episodes).toEqual([{ id: expect.any(String), channel: 'call', summary: 'They planned their training around the school run.', occurredAt: new Date(TUESDAY).toISOString() }])
  })

  it('refuses a user who is not signed in, and one who does not pay', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/memory' })).statusCode).toBe(401)
    const free = await signedInUser(app, { paid: false })
    const response = await app.inject({ method: 'GET', url: '/api/memory', headers: free.headers })
    expect(response.statusCode).toBe(403)
  })
})

describe('PATCH /api/memory/facts/:factId', () => {
  it('supersedes the fact with the correction: gone from the view and from the coach brief', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    await recordCall(user, [{ statement: 'Training for a 10k in April', subject: 'fitness' }])
    const [fact] = (await view(user)).facts
    expect(await briefFacts(user)).toEqual(['Training for a 10k in April'])

    const response = await app.inject({
      method: 'PATCH',
      url: `/api/memory/facts/${fact!.id}`,
      headers: user.headers,
      payload: { statement: '  Moved the 10k race to May  ' },
    })
    expect(response.statusCode).toBe(200)
    const corrected = MemoryViewSchema.parse(response.json())
    expect(corrected.facts.map(({ statement, subject, source, origin }) => ({ statement, subject, source, origin }))).toEqual([
      { statement: 'Moved the 10k race to May', subject: 'fitness', source: 'person', origin: 'from your correction on Fri, Mar 12' },
    ])
    expect(await view(user)).toEqual(corrected)
    expect(await briefFacts(user)).toEqual(['Moved the 10k race to May'])
    // The old one is kept, closed and pointing at its correction (the validity interval).
    const [old] = await database.db.select().from(memoryFacts).where(eq(memoryFacts.id, fact!.id))
    expect(old).toMatchObject({ supersededBy: corrected.facts[0]!.id, validTo: expect.any(Date) })

    // A correction of the closed fact is a 404: it changed already.
    const again = await app.inject({ method: 'PATCH', url: `/api/memory/facts/${fact!.id}`, headers: user.headers, payload: { statement: 'Running in June' } })
    expect(again.statusCode).toBe(404)
    expect(errorOf(again)).toMatchObject({ code: 'NOT_FOUND', field: 'factId' })
  })

  it('moves the fact to another subject when the correction says so', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    await recordCall(user, [{ statement: 'Works nights at the hospital', subject: 'other' }])
    const [fact] = (await view(user)).facts
    const response = await app.inject({
      method: 'PATCH',
      url: `/api/memory/facts/${fact!.id}`,
      headers: user.headers,
      payload: { statement: 'Works night shifts as a nurse', subject: 'work' },
    })
    expect(response.statusCode).toBe(200)
    expect(MemoryViewSchema.parse(response.json()).facts).toMatchObject([{ statement: 'Works night shifts as a nurse', subject: 'work' }])
  })

  it('answers 400 naming the field for a bad correction, and writes nothing', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    await recordCall(user, [{ statement: 'Prefers morning calls', subject: 'preferences' }])
    const [fact] = (await view(user)).facts
    const cases: Array<[unknown, string]> = [
      [{ statement: '   ' }, 'statement'],
      [{ statement: 'x'.repeat(501) }, 'statement'],
      [{}, 'statement'],
      [{ statement: 'Prefers evening calls', subject: 'astrology' }, 'subject'],
    ]
    for (const [payload, field] of cases) {
      const response = await app.inject({ method: 'PATCH', url: `/api/memory/facts/${fact!.id}`, headers: user.headers, payload: payload as object })
      expect({ status: response.statusCode, field: errorOf(response).field }).toEqual({ status: 400, field })
    }
    expect((await view(user)).facts.map((f) => f.statement)).toEqual(['Prefers morning calls'])
  })
})

describe('DELETE /api/memory/facts/:factId', () => {
  it('deletes the fact for good: processing the same source again does not bring it back', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    const callId = randomUUID()
    await recordCall(
      user,
      [
        { statement: 'Hurt their knee skiing', subject: 'health' },
        { statement: 'Loves Sunday long runs', subject: 'fitness' },
      ],
      { callId },
    )
    const knee = (await view(user)).facts.find((fact) => fact.statement === 'Hurt their knee skiing')!
    const response = await app.inject({ method: 'DELETE', url: `/api/memory/facts/${knee.id}`, headers: user.headers })
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect((await view(user)).facts.map((fact) => fact.statement)).toEqual(['Loves Sunday long runs'])
    expect(await briefFacts(user)).toEqual(['Loves Sunday long runs'])
    // Gone from the table, not hidden; the words are not kept, only a fingerprint of them.
    expect(await database.db.select().from(memoryFacts).where(eq(memoryFacts.id, knee.id))).toEqual([])
    const forgotten = await database.db.select().from(memoryForgotten).where(eq(memoryForgotten.userId, user.user.id))
    expect(forgotten).toHaveLength(1)
    expect(JSON.stringify(forgotten)).not.toContain('knee')

    // The same call processed again (a new extraction of the same source, the same words).
    const again = await recordCall(user, [{ statement: 'Hurt their knee skiing', subject: 'health' }], { callId, key: `${callId}:again` })
    expect(again).toMatchObject({ applied: true, added: 0, dropped: 1 })
    expect((await view(user)).facts.map((fact) => fact.statement)).toEqual(['Loves Sunday long runs'])

    // Deleted twice: it is not there any more.
    const twice = await app.inject({ method: 'DELETE', url: `/api/memory/facts/${knee.id}`, headers: user.headers })
    expect(twice.statusCode).toBe(404)
    expect(errorOf(twice)).toMatchObject({ code: 'NOT_FOUND', field: 'factId' })
  })

  it('deletes a corrected fact with the versions it replaced', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    const callId = randomUUID()
    await recordCall(user, [{ statement: 'Training for a 10k in April', subject: 'fitness' }], { callId })
    const [fact] = (await view(user)).facts
    await app.inject({ method: 'PATCH', url: `/api/memory/facts/${fact!.id}`, headers: user.headers, payload: { statement: 'Moved the 10k race to May' } })
    const [corrected] = (await view(user)).facts
    expect((await app.inject({ method: 'DELETE', url: `/api/memory/facts/${corrected!.id}`, headers: user.headers })).statusCode).toBe(204)
    expect(await database.db.select().from(memoryFacts).where(eq(memoryFacts.userId, user.user.id))).toEqual([])
    await recordCall(user, [{ statement: 'Training for a 10k in April', subject: 'fitness' }], { callId, key: `${callId}:again` })
    expect((await view(user)).facts).toEqual([])
  })
})

describe('DELETE /api/memory', () => {
  it('deletes every fact and episode once confirmed; the sources already read never come back', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    const callId = randomUUID()
    await recordCall(
      user,
      [
        { statement: 'Training for a 10k in April', subject: 'fitness' },
        { statement: 'Has two children', subject: 'family' },
      ],
      { callId },
    )
    const other = await signedInUser(app, { paid: 'premium' })
    await recordCall(other, [{ statement: 'Learning Spanish', subject: 'personal_development' }])

    for (const payload of [undefined, {}, { confirm: false }, { confirm: 'yes' }]) {
      const refused = await app.inject({ method: 'DELETE', url: '/api/memory', headers: user.headers, ...(payload === undefined ? {} : { payload }) })
      expect(refused.statusCode).toBe(400)
    }
    const unconfirmed = await app.inject({ method: 'DELETE', url: '/api/memory', headers: user.headers, payload: { confirm: false } })
    expect(errorOf(unconfirmed).field).toBe('confirm')
    expect((await view(user)).facts).toHaveLength(2)

    const response = await app.inject({ method: 'DELETE', url: '/api/memory', headers: user.headers, payload: { confirm: true } })
    expect(response.statusCode).toBe(204)
    expect(await view(user)).toEqual({ paused: false, facts: [], episodes: [] })
    expect(await database.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, user.user.id))).toEqual([])
    expect(await briefFacts(user)).toEqual([])

    await recordCall(user, [{ statement: 'Has two children', subject: 'family' }], { callId, key: `${callId}:again` })
    expect((await view(user)).facts).toEqual([])
    // The other person's memory is untouched.
    expect((await view(other)).facts.map((fact) => fact.statement)).toEqual(['Learning Spanish'])
  })
})

describe('PUT /api/memory/pause', () => {
  it('paused, the brief has no facts and nothing new is kept; resumed, the facts come back', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    await recordCall(user, [{ statement: 'Training for a 10k in April', subject: 'fitness' }])
    expect(await briefFacts(user)).toEqual(['Training for a 10k in April'])

    const pause = await app.inject({ method: 'PUT', url: '/api/memory/pause', headers: user.headers, payload: { paused: true } })
    expect(pause.statusCode).toBe(204)
    expect((await view(user)).paused).toBe(true)
    expect((await app.services.memory.brief(user.user.id))?.facts ?? []).toEqual([])

    const outcome = await recordCall(user, [{ statement: 'Started a new job at the library', subject: 'work' }])
    expect(outcome).toMatchObject({ paused: true, applied: false, added: 0 })
    const facts = await database.db.select().from(memoryFacts).where(eq(memoryFacts.userId, user.user.id))
    expect(facts.map((fact) => fact.statement)).toEqual(['Training for a 10k in April'])
    expect(await database.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, user.user.id))).toHaveLength(1)

    const resume = await app.inject({ method: 'PUT', url: '/api/memory/pause', headers: user.headers, payload: { paused: false } })
    expect(resume.statusCode).toBe(204)
    expect((await view(user)).paused).toBe(false)
    expect(await briefFacts(user)).toEqual(['Training for a 10k in April'])
  })

  it('answers 400 naming the field for a body that is not a boolean', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    for (const payload of [{ paused: 'yes' }, {}]) {
      const response = await app.inject({ method: 'PUT', url: '/api/memory/pause', headers: user.headers, payload })
      expect({ status: response.statusCode, field: errorOf(response).field }).toEqual({ status: 400, field: 'paused' })
    }
  })
})

describe("another person's memory", () => {
  it("is a 404 for every operation on another person's fact, and it stays as it was", async () => {
    const owner = await signedInUser(app, { paid: 'premium' })
    const stranger = await signedInUser(app, { paid: 'premium' })
    await recordCall(owner, [{ statement: 'Their daughter starts school on Monday', subject: 'family' }])
    const [fact] = (await view(owner)).facts
    const patch = await app.inject({ method: 'PATCH', url: `/api/memory/facts/${fact!.id}`, headers: stranger.headers, payload: { statement: 'Mine now' } })
    const remove = await app.inject({ method: 'DELETE', url: `/api/memory/facts/${fact!.id}`, headers: stranger.headers })
    for (const response of [patch, remove]) {
      expect(response.statusCode).toBe(404)
      expect(errorOf(response)).toMatchObject({ code: 'NOT_FOUND', field: 'factId' })
    }
    expect((await view(stranger)).facts).toEqual([])
    // Deleting everything deletes the stranger's own memory only.
    expect((await app.inject({ method: 'DELETE', url: '/api/memory', headers: stranger.headers, payload: { confirm: true } })).statusCode).toBe(204)
    expect((await view(owner)).facts).toEqual([fact])
  })

  it('answers a fact id that is not a uuid with 404 naming factId, never a 500', async () => {
    const user = await signedInUser(app, { paid: 'premium' })
    for (const id of ['not-a-uuid', '12345', 'x'.repeat(64)]) {
      const patch = await app.inject({ method: 'PATCH', url: `/api/memory/facts/${id}`, headers: user.headers, payload: { statement: 'Anything' } })
      const remove = await app.inject({ method: 'DELETE', url: `/api/memory/facts/${id}`, headers: user.headers })
      for (const response of [patch, remove]) {
        expect({ status: response.statusCode, error: errorOf(response) }).toMatchObject({ status: 404, error: { code: 'NOT_FOUND', field: 'factId' } })
      }
    }
    const tooLong = await app.inject({ method: 'DELETE', url: `/api/memory/facts/${'x'.repeat(65)}`, headers: user.headers })
    expect({ status: tooLong.statusCode, field: errorOf(tooLong).field }).toEqual({ status: 400, field: 'factId' })
  })
})
