/**
 * The coach's memory of a person (docs/decisions/083): what it can be about, where it came from,
 * and the shapes of `/memory`.
 */
import { z } from 'zod'
import { LIFE_AREAS } from './domain'
import { LIFE_AREA_TITLES } from './life-areas'
import { text } from './text'

/** What a fact is about: one of the life areas, or health, work, preferences, or other. Family is a life area. */
export const MEMORY_SUBJECTS = [...LIFE_AREAS, 'health', 'work', 'preferences', 'other'] as const
export type MemorySubject = (typeof MEMORY_SUBJECTS)[number]

/** Where an episode happened: a phone call, a voice call in the app, a chat, a text, a 1-on-1 with the coach. */
export const MEMORY_CHANNELS = ['call', 'voice', 'chat', 'text', 'coach_session'] as const
export type MemoryChannel = (typeof MEMORY_CHANNELS)[number]

/** Where a fact came from: a channel, or the person's own correction on `/memory`. */
export const MEMORY_SOURCES = [...MEMORY_CHANNELS, 'person'] as const
export type MemorySource = (typeof MEMORY_SOURCES)[number]

export const MEMORY_STATEMENT_MAX = 500

export const MEMORY_SUBJECT_TITLES: Record<MemorySubject, string> = {
  ...LIFE_AREA_TITLES,
  health: 'Health',
  work: 'Work & Career',
  preferences: 'How you like to be coached',
  other: 'Other',
}

export const MEMORY_SOURCE_LABELS: Record<MemorySource, string> = {
  call: 'your call',
  voice: 'your voice session',
  chat: 'your chat',
  text: 'your text',
  coach_session: 'your session with your coach',
  person: 'your correction',
}

export const MemoryFactSchema = z.object({
  id: text(),
  statement: text(),
  subject: z.enum(MEMORY_SUBJECTS),
  source: z.enum(MEMORY_SOURCES),
  /** "from your call on Tue, Mar 9" */
  origin: text(),
  validFrom: z.iso.datetime({ offset: true }),
})
export type MemoryFactView = z.infer<typeof MemoryFactSchema>

const MemoryEpisodeSchema = z.object({
  id: text(),
  channel: z.enum(MEMORY_CHANNELS),
  summary: text(),
  occurredAt: z.iso.datetime({ offset: true }),
})

export const MemoryViewSchema = z.object({
  paused: z.boolean(),
  facts: z.array(MemoryFactSchema),
  episodes: z.array(MemoryEpisodeSchema),
})
export type MemoryView = z.infer<typeof MemoryViewSchema>

/** A correction: the new words (and, when it moved, the subject); the old fact is superseded. */
export const CorrectFactSchema = z.object({
  statement: text().trim().min(1, "Write what your coach should remember.").max(MEMORY_STATEMENT_MAX),
  subject: z.enum(MEMORY_SUBJECTS).optional(),
})

export const MemoryPauseSchema = z.object({ paused: z.boolean() })
