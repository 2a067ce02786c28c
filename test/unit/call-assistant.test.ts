import { describe, expect, it } from 'vitest'
import { LIFE_AREAS } from '#common/domain'
import {
  CALL_REPORT_LIMITS,
  CALL_REPORT_OUTPUT,
  CALL_REPORT_SCHEMA,
  CALL_VARIABLES,
  COACH_ASSISTANT_NAME,
  COACH_FIRST_MESSAGE,
  COACH_PROMPT,
  COACH_VOICEMAIL_MESSAGE,
  CallReportResult,
  findCallReport,
} from '#server/services/calls'
import { credentialName, holds } from '../../scripts/vapi-setup'

/** The variable names a LiquidJS template reads: `{{ name }}` or `{{ name | filter }}`. */
const variablesIn = (template: string) => new Set([...template.matchAll(/\{\{\s*([A-Za-z_][\w.]*)\s*(?:\||\}\})/g)].map((match) => match[1]))

/** Renders the template the way Vapi would for the given values (enough for these texts). */
const render = (template: string, values: Record<string, string>) =>
  template.replace(/\{\{\s*(\w+)\s*(?:\|\s*default:\s*"([^"]*)"\s*)?\}\}/g, (_all, name: string, fallback: string | undefined) => values[name] || fallback || '')

const firstSentence = (text: string) => text.split(/(?<=[.!?])\s+/)[0]!

describe('the coaching assistant', () => {
  it('uses every call variable in its prompt, and no variable a call does not send', () => {
    const used = variablesIn(COACH_PROMPT)
    for (const name of CALL_VARIABLES) expect(used, name).toContain(name)
    expect([...used].filter((name) => !(CALL_VARIABLES as readonly string[]).includes(name!))).toEqual([])
  })

  it('covers the monthly goal session against the 90-day goal, 1 to 3 commitments and the time limit', () => {
    expect(COACH_PROMPT).toContain('"monthly goal session"')
    expect(COACH_PROMPT).toMatch(/past month against their 90-day goal/)
    expect(COACH_PROMPT).toMatch(/one to three concrete commitments for before the next call/)
    expect(COACH_PROMPT).toMatch(/Time limit: \{\{maxMinutes\}\} minutes/)
    for (const area of ['faith', 'family relationships', 'fitness and health', 'finance', 'friends and social life', 'fun and recreation', 'service to others', 'personal development', 'work and career']) {
      expect(COACH_PROMPT).toContain(area)
    }
  })

  it('says in the first sentence of its first message that it is an AI coach from Momentum Coach calling for the check-in', () => {
    const sentence = firstSentence(render(COACH_FIRST_MESSAGE, { firstName: 'Dana', callKind: 'daily check-in' }))
    expect(sentence).toBe('Hi Dana, this is the AI coach from Momentum Coach calling for your daily check-in.')
    expect(firstSentence(render(COACH_FIRST_MESSAGE, { firstName: 'Dana', callKind: '' }))).toContain('calling for your daily check-in')
    expect(firstSentence(render(COACH_FIRST_MESSAGE, { firstName: 'Dana', callKind: 'monthly goal session' }))).toMatch(/^Hi Dana, this is the AI coach from Momentum Coach calling for your monthly goal session\.$/)
    expect([...variablesIn(COACH_FIRST_MESSAGE)].sort()).toEqual(['callKind', 'firstName'])
  })

  it('leaves a voicemail that names nothing personal', () => {
    expect(variablesIn(COACH_VOICEMAIL_MESSAGE).size).toBe(0)
    expect(COACH_VOICEMAIL_MESSAGE).not.toContain('{')
    expect(COACH_VOICEMAIL_MESSAGE).toContain('Momentum Coach')
    expect(COACH_VOICEMAIL_MESSAGE.length).toBeLessThan(200)
  })

  it('fits Vapi limits: names of 40 characters at most', () => {
    expect(COACH_ASSISTANT_NAME.length).toBeLessThanOrEqual(40)
    expect(CALL_REPORT_OUTPUT.length).toBeLessThanOrEqual(40)
    expect(credentialName('secret', 'x'.repeat(64)).length).toBeLessThanOrEqual(40)
    expect(credentialName('hmac', 'x'.repeat(64)).length).toBeLessThanOrEqual(40)
  })

  it('names a credential after its mode and a fingerprint of the secret, never the secret', () => {
    const name = credentialName('secret', 'hunter2-long-webhook-secret')
    expect(name).toMatch(/^Momentum Coach webhook secret [0-9a-f]{8}$/)
    expect(name).not.toContain('hunter2')
    expect(credentialName('secret', 'hunter2-long-webhook-secret')).toBe(name)
    expect(credentialName('secret', 'another-secret')).not.toBe(name)
    expect(credentialName('hmac', 'hunter2-long-webhook-secret')).not.toBe(name.replace('secret ', 'hmac '))
  })

  it("asks for the report's areas among the eight life area ids", () => {
    expect(CALL_REPORT_SCHEMA.properties.areasDiscussed.items.enum).toEqual([...LIFE_AREAS])
    expect(CALL_REPORT_SCHEMA.properties.mood).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 })
    expect(CALL_REPORT_SCHEMA.properties.energy).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 })
    expect(CALL_REPORT_SCHEMA.required).toEqual(['areasDiscussed', 'summary', 'commitments'])
    // The review of the open commitments the call was given: by number and words, kept or missed.
    expect(CALL_REPORT_SCHEMA.properties.commitmentsReviewed.items.properties.outcome.enum).toEqual(['kept', 'missed'])
    expect(CALL_REPORT_SCHEMA.properties.commitmentsReviewed.items.properties.number).toMatchObject({ type: 'integer', minimum: 1, maximum: 5 })
    expect(CALL_REPORT_SCHEMA.properties.commitmentsReviewed.description).toContain('Their open commitments from earlier calls')
    expect(COACH_PROMPT).toContain('Their open commitments from earlier calls, numbered:\n{{openCommitments}}')
  })

  it('opens a check-in with the open commitments, asked in their own words', () => {
    const steps = COACH_PROMPT.slice(COACH_PROMPT.indexOf('# How a check-in goes'))
    expect(steps).toMatch(/^# How a check-in goes[^\n]*\n1\. They have heard your greeting\. Open with their commitments: if they have open commitments, ask about each one in turn, in its own words \(never by its number\)/)
  })
})

describe('CallReportResult', () => {
  it('keeps a well-formed result', () => {
    const result = {
      areasDiscussed: ['fitness', 'finance'],
      summary: 'Dana walked twice.',
      mood: 7,
      energy: 6,
      commitments: ['Walk on Tuesday'],
      commitmentsReviewed: [{ number: 1, commitment: 'Walk 20 minutes on Monday', outcome: 'kept' }],
    }
    expect(CallReportResult.parse(result)).toEqual({ ...result, facts: { learned: [], changed: [] } })
  })

  it('drops unknown areas and reads titles and other spellings, each area once', () => {
    const parsed = CallReportResult.parse({ areasDiscussed: ['fitness', 'Finance', 'Fitness & Health', 'career', 'personal development', 'Personal-Development', 42, null] })
    expect(parsed.areasDiscussed).toEqual(['fitness', 'finance', 'personal_development'])
    expect(CallReportResult.parse({ areasDiscussed: 'family' }).areasDiscussed).toEqual(['family'])
    expect(CallReportResult.parse({ areasDiscussed: { fitness: true } }).areasDiscussed).toEqual([])
  })

  it.each([
    [7, 7],
    [11, 10],
    [0, 1],
    [-3, 1],
    [7.6, 8],
    ['6', 6],
    [' 9 ', 9],
    ['high', null],
    ['', null],
    [null, null],
    [undefined, null],
    [Number.NaN, null],
    [true, null],
  ])('mood %j → %j (rounded, clamped to 1–10, else null)', (mood, expected) => {
    expect(CallReportResult.parse({ mood, energy: mood }).mood).toBe(expected)
    expect(CallReportResult.parse({ mood, energy: mood }).energy).toBe(expected)
  })

  it('cleans the summary: blank is null, NUL and lone surrogates go, very long text is cut', () => {
    expect(CallReportResult.parse({ summary: '   ' }).summary).toBeNull()
    expect(CallReportResult.parse({ summary: 12 }).summary).toBeNull()
    expect(CallReportResult.parse({ summary: ' Dana\u0000 walked\n\ntwice. \uD800' }).summary).toBe('Dana walked twice.')
    const long = CallReportResult.parse({ summary: 'word '.repeat(2000) }).summary!
    expect(long.length).toBe(CALL_REPORT_LIMITS.summaryChars)
    expect(long.endsWith('…')).toBe(true)
  })

  it('trims commitments, drops empty and repeated ones, takes a lone string, and caps the list', () => {
    expect(CallReportResult.parse({ commitments: ['  Walk on Tuesday ', '', 'walk on tuesday', 7, 'Call Mom'] }).commitments).toEqual(['Walk on Tuesday', 'Call Mom'])
    expect(CallReportResult.parse({ commitments: 'Read ten pages' }).commitments).toEqual(['Read ten pages'])
    const many = CallReportResult.parse({ commitments: Array.from({ length: 20 }, (_, index) => `Step ${index}`) }).commitments
    expect(many).toHaveLength(CALL_REPORT_LIMITS.commitments)
  })

  it('reads the review of open commitments: kept or missed ("partly" is missed), by number and words; drops the unusable', () => {
    const parsed = CallReportResult.parse({
      commitmentsReviewed: [
        { number: 1, commitment: ' Walk 20 minutes ', outcome: 'kept' },
        { number: '2', outcome: 'Missed' },
        { commitment: 'Call Mom', outcome: 'partly done' },
        { number: 3, commitment: 'Read', outcome: true },
        { number: 4, commitment: 'Budget', outcome: 'maybe' },
        { number: 0, outcome: 'kept' },
        { outcome: 'kept' },
        'kept',
        null,
      ],
    })
    expect(parsed.commitmentsReviewed).toEqual([
      { number: 1, commitment: 'Walk 20 minutes', outcome: 'kept' },
      { number: 2, commitment: null, outcome: 'missed' },
      { number: null, commitment: 'Call Mom', outcome: 'missed' },
      { number: 3, commitment: 'Read', outcome: 'kept' },
    ])
    expect(CallReportResult.parse({ commitmentsReviewed: 'all kept' }).commitmentsReviewed).toEqual([])
  })

  it.each([null, 'a summary', ['fitness'], 42])('gives the empty report for %j', (input) => {
    expect(CallReportResult.parse(input)).toEqual({ areasDiscussed: [], summary: null, mood: null, energy: null, commitments: [], commitmentsReviewed: [], facts: { learned: [], changed: [] } })
  })

  it('finds the report among the structured outputs by name, not by id', () => {
    const outputs = {
      'f1b9c3a0-0000-4000-8000-000000000001': { name: 'other_output', result: { mood: 1 } },
      'f1b9c3a0-0000-4000-8000-000000000002': { name: CALL_REPORT_OUTPUT, result: { areasDiscussed: ['fun'], summary: 'Fun.', mood: 12, commitments: ['Play'] } },
    }
    expect(findCallReport(outputs)).toEqual({ areasDiscussed: ['fun'], summary: 'Fun.', mood: 10, energy: null, commitments: ['Play'], commitmentsReviewed: [], facts: { learned: [], changed: [] } })
    expect(findCallReport({ x: { name: 'other_output', result: {} } })).toBeNull()
    expect(findCallReport(undefined)).toBeNull()
    expect(findCallReport('nope')).toBeNull()
  })
})

describe('holds (what setup compares)', () => {
  it('ignores fields Vapi adds, but not a missing or different one', () => {
    expect(holds({ url: 'u', timeoutSeconds: 20, extra: 1 }, { url: 'u', timeoutSeconds: 20 })).toBe(true)
    expect(holds({ url: 'u' }, { url: 'u', timeoutSeconds: 20 })).toBe(false)
    expect(holds(['a', 'b'], ['a'])).toBe(false)
    expect(holds([{ role: 'system', content: 'p', extra: true }], [{ role: 'system', content: 'p' }])).toBe(true)
    expect(holds(undefined, { a: 1 })).toBe(false)
    expect(holds(600, 600)).toBe(true)
  })
})
