import type { FastifySerializerCompiler } from 'fastify/types/schema'
import fastJson from 'fast-json-stringify'
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'

type JsonSchema = { [key: string]: unknown }

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * `anyOf: [{ type: T, … }, { type: 'null' }]` (how zod writes `.nullable()`) becomes
 * `{ type: [T, 'null'], … }`: fast-json-stringify writes a type list directly, where `anyOf` makes it
 * test every value against each branch at run time.
 */
function simplify(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(simplify)
  if (!isObject(schema)) return schema
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) out[key] = simplify(value)
  const anyOf = out.anyOf
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((branch) => isObject(branch) && branch.type === 'null' && Object.keys(branch).length === 1)
    const other = anyOf[1 - nullIndex]
    if (nullIndex !== -1 && isObject(other) && typeof other.type === 'string' && other.anyOf === undefined) {
      const { anyOf: _dropped, ...rest } = out
      const merged: JsonSchema = { ...rest, ...other, type: [other.type, 'null'] }
      if (Array.isArray(merged.enum)) delete merged.enum // validation only; the writer needs the type
      return merged
    }
  }
  return out
}

/** A response schema as JSON Schema for fast-json-stringify, or undefined when zod cannot express it. */
export function responseJsonSchema(schema: z.ZodType): JsonSchema | undefined {
  try {
    const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw' }) as JsonSchema
    delete json.$schema
    return simplify(json) as JsonSchema
  } catch {
    return undefined
  }
}

/**
 * A response serialiser compiled from the zod schema, as Fastify does for JSON Schema: the zod
 * schema becomes JSON Schema, and fast-json-stringify writes exactly its properties (anything else a
 * handler returns, say a password hash, is never sent). A schema zod cannot express as JSON Schema
 * (a transform) keeps the zod serialiser.
 */
export const compileSerializer: FastifySerializerCompiler<z.ZodType> = (route) => {
  const json = responseJsonSchema(route.schema)
  if (!json) return zodSerializerCompiler(route)
  return fastJson(json as unknown as Parameters<typeof fastJson>[0]) as (data: unknown) => string
}

/**
 * Fastify's serializer compiler: each route and status's serialiser is compiled by its first
 * response, once, not all of them at start (they were about 0.18 s of CPU of every start:
 * docs/decisions/066-compiled-server.md). test/unit/serializer.test.ts compiles every API schema.
 */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (route) => {
  let write: ((data: unknown) => string) | undefined
  return (data: unknown) => (write ??= compileSerializer(route) as (data: unknown) => string)(data)
}
