import fastJson from 'fast-json-stringify'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import * as auth from '#common/auth'
import * as billing from '#common/billing'
import * as calls from '#common/calls'
import * as chat from '#common/chat'
import * as courses from '#common/courses'
import * as dashboard from '#common/dashboard'
import * as errors from '#common/errors'
import * as goals from '#common/goals'
import * as health from '#common/health'
import * as optIn from '#common/opt-in'
import * as plans from '#common/plans'
import * as voice from '#common/voice'
import { compileSerializer, responseJsonSchema, serializerCompiler } from '#server/lib/serializer'

const compile = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' }) as (data: unknown) => string

describe('response serialisers compiled from the zod schemas', () => {
  const SessionLike = z.object({
    user: z.object({
      id: z.string(),
      tier: z.enum(['basic', 'premium']).nullable(),
      score: z.number().int().nullable(),
      end: z.string().nullable(),
      notes: z.record(z.string(), z.string().nullable()).nullable(),
      tags: z.array(z.string()),
      kind: z.literal('member'),
    }),
  })

  it('write the same JSON the zod schema describes, nulls included', () => {
    const data = { user: { id: 'u1', tier: null, score: null, end: null, notes: null, tags: [], kind: 'member' as const } }
    expect(JSON.parse(compile(SessionLike)(data))).toEqual(data)
    const full = { user: { id: 'u1', tier: 'premium', score: 7, end: '2026-12-01T00:00:00.000Z', notes: { a: 'b', c: null }, tags: ['x'], kind: 'member' } }
    expect(JSON.parse(compile(SessionLike)(full))).toEqual(full)
  })

  it('never write a property the schema does not name (a password hash stays in)', () => {
    const data = { user: { id: 'u1', passwordHash: '$argon2id$secret', tier: 'basic', score: 1, end: null, notes: null, tags: [], kind: 'member' } }
    const out = compile(SessionLike)(data)
    expect(out).not.toContain('argon2id')
    expect(JSON.parse(out).user).not.toHaveProperty('passwordHash')
  })

  it('use fast-json-stringify, not zod, for a representable schema', () => {
    const json = responseJsonSchema(SessionLike)!
    // A nullable scalar is a type list, so the writer never tests values against anyOf branches.
    expect((json.properties as Record<string, { properties: Record<string, unknown> }>).user?.properties.tier).toEqual({ type: ['string', 'null'] })
    const route = { schema: SessionLike, method: 'GET', url: '/x', httpStatus: '200' }
    expect(compileSerializer(route).toString()).toBe(fastJson(json as never).toString())
  })

  it('compile the serialiser of a route at its first response, once, and write what the eager one writes', () => {
    const schema = z.object({ id: z.string() })
    let reads = 0
    const counted = new Proxy(schema, { get: (target, key, receiver) => (key === '_zod' && reads++, Reflect.get(target, key, receiver)) })
    const write = compile(counted)
    expect(reads).toBe(0)
    expect(write({ id: 'a', extra: 1 })).toBe('{"id":"a"}')
    const afterFirst = reads
    expect(afterFirst).toBeGreaterThan(0)
    expect(write({ id: 'b' })).toBe('{"id":"b"}')
    expect(reads).toBe(afterFirst)
  })

  it('keep the zod serialiser for a schema JSON Schema cannot express', () => {
    const WithDate = z.object({ at: z.date() })
    expect(responseJsonSchema(WithDate)).toBeUndefined()
    expect(JSON.parse(compile(WithDate)({ at: new Date(0) }))).toEqual({ at: '1970-01-01T00:00:00.000Z' })
  })

  it('compile every response schema of the API to the fast path', () => {
    const modules = { auth, billing, calls, chat, courses, dashboard, errors, goals, health, optIn, plans, voice }
    const names: string[] = []
    for (const [module, exports] of Object.entries(modules)) {
      for (const [name, value] of Object.entries(exports)) {
        if (!/(Response|Body)Schema$/.test(name) || !(value instanceof z.ZodType)) continue
        if (name.endsWith('BodySchema') && name !== 'ErrorBodySchema') continue
        names.push(`${module}.${name}`)
        expect(responseJsonSchema(value), `${module}.${name}`).toBeDefined()
        // Compiled by the route's first response in the server: here, all of them at once.
        expect(typeof compileSerializer({ schema: value, method: 'GET', url: '/x', httpStatus: '200' }), `${module}.${name}`).toBe('function')
      }
    }
    expect(names.length).toBeGreaterThan(15)
  })
})
