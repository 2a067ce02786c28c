/**
 * What a channel hands the memory after a conversation (docs/decisions/083): the episode's summary
 * and the facts learned or changed, as a model wrote them. Parsed leniently, as the call report is:
 * a model's output never fails the parse; what is unusable is dropped.
 */
import { z } from 'zod'
import { MEMORY_CHANNELS, MEMORY_STATEMENT_MAX, MEMORY_SUBJECTS, type MemorySubject } from '#common/memory'
import { storableText } from '#common/text'

/** At most this many facts are taken from one source (a model may list everything it heard). */
const FACTS_PER_SOURCE = 12

const SUBJECTS = new Set<string>(MEMORY_SUBJECTS)

function clean(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null
  const cleaned = storableText(value).replace(/\s+/g, ' ').trim()
  if (!cleaned) return null
  return cleaned.length > max ? `${cleaned.slice(0, max - 1).trimEnd()}…` : cleaned
}

function subjectOf(value: unknown): MemorySubject {
  const name = typeof value === 'string' ? value.trim().toLowerCase().replace(/[\s&-]+/g, '_') : ''
  if (SUBJECTS.has(name)) return name as MemorySubject
  if (name === 'career' || name === 'work_and_career') return 'work'
  if (name === 'fitness_and_health') return 'fitness'
  return 'other'
}

type LearnedFact = { statement: string; subject: MemorySubject; stated: boolean }
type ChangedFact = LearnedFact & { previous: string }

function factOf(item: unknown): LearnedFact | null {
  if (typeof item === 'string') {
    const statement = clean(item, MEMORY_STATEMENT_MAX)
    return statement ? { statement, subject: 'other', stated: true } : null
  }
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return null
  const fields = item as Record<string, unknown>
  const statement = clean(fields.statement ?? fields.fact, MEMORY_STATEMENT_MAX)
  // A placeholder ("...") says nothing.
  if (!statement || !/[\p{L}\p{N}]/u.test(statement)) return null
  // Only a health fact needs the person's own words: the model says whether they said it.
  const stated = fields.stated === undefined ? true : fields.stated === true || fields.stated === 'true'
  return { statement, subject: subjectOf(fields.subject), stated }
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value.slice(0, FACTS_PER_SOURCE * 2) : []
}

/** The facts of an extraction (a call report's, a chat extraction's), cleaned. */
export const ExtractedFacts = z.unknown().transform((input) => {
  const result = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
  const learned = listOf(result.factsLearned)
    .map(factOf)
    .filter((fact): fact is LearnedFact => fact !== null)
  const changed = listOf(result.factsChanged).flatMap((item): ChangedFact[] => {
    const fact = factOf(item)
    const previous = item !== null && typeof item === 'object' ? clean((item as Record<string, unknown>).previous, MEMORY_STATEMENT_MAX) : null
    return fact && previous ? [{ ...fact, previous }] : fact ? [] : []
  })
  return { learned: learned.slice(0, FACTS_PER_SOURCE), changed: changed.slice(0, FACTS_PER_SOURCE) }
})
export type Extracted = z.output<typeof ExtractedFacts>

/** The structured output's properties for the facts (the call report and the chat extraction share them). */
export const FACTS_SCHEMA_PROPERTIES = {
  factsLearned: {
    type: 'array',
    maxItems: FACTS_PER_SOURCE,
    description:
      'New, lasting facts the person told about themselves in this conversation that a coach should remember next time (for example "Their daughter starts school on Monday, Sept 8", "Training for a 10k in April"). Each one short, in the third person, about them only. Leave out what is already in the goals, passing small talk, anything about suicide, self-harm or a crisis, and any health detail they did not say themselves: never infer one. Empty when none.',
    items: {
      type: 'object',
      properties: {
        statement: { type: 'string' },
        subject: { type: 'string', enum: [...MEMORY_SUBJECTS] },
        stated: { type: 'boolean', description: 'True when the person said it in their own words; false when it is your inference.' },
      },
      required: ['statement', 'subject', 'stated'],
    },
  },
  factsChanged: {
    type: 'array',
    maxItems: FACTS_PER_SOURCE,
    description:
      'Facts the coach knew (as the assistant\'s instructions list them under "What you remember") that the person said have changed: the old fact in the words of that list, and the new one (for example previous "Training for a 10k in April", statement "Moved the 10k race to May"). Empty when none.',
    items: {
      type: 'object',
      properties: {
        previous: { type: 'string' },
        statement: { type: 'string' },
        subject: { type: 'string', enum: [...MEMORY_SUBJECTS] },
        stated: { type: 'boolean' },
      },
      required: ['previous', 'statement', 'subject', 'stated'],
    },
  },
} as const

/** A source's contribution, as the memory-record job carries it. */
export const MemoryRecordPayload = z
  .object({
    userId: z.uuid(),
    channel: z.enum(MEMORY_CHANNELS),
    /** The call's, conversation's, text's or session's id. */
    sourceId: z.string().min(1).max(200),
    /** What makes this extraction one: the source, and how far into it (a conversation goes on). */
    key: z.string().min(1).max(300),
    occurredAt: z.iso.datetime({ offset: true }),
    summary: z.string().max(4000).nullable(),
    learned: z.array(z.object({ statement: z.string().min(1).max(MEMORY_STATEMENT_MAX), subject: z.enum(MEMORY_SUBJECTS), stated: z.boolean() })).max(FACTS_PER_SOURCE),
    changed: z
      .array(z.object({ previous: z.string().min(1).max(MEMORY_STATEMENT_MAX), statement: z.string().min(1).max(MEMORY_STATEMENT_MAX), subject: z.enum(MEMORY_SUBJECTS), stated: z.boolean() }))
      .max(FACTS_PER_SOURCE),
  })
  .strict()
export type MemoryRecord = z.infer<typeof MemoryRecordPayload>
