import { describe, expect, it } from 'vitest'
import {
  CHAT_ERRORS,
  CONVERSATION_MESSAGES_MAX,
  ChatMessageSchema,
  ConversationQuerySchema,
  SAVE_BATCH_MAX,
  STORED_MESSAGE_MAX,
  SaveContentBodySchema,
  SendMessageBodySchema,
  acceptUserTranscript,
  addAssistantMessage,
  decideAssistantMessage,
  mergeMessages,
  textBytes,
  titleFromMessages,
  utf8Length,
  type AssistantMessageDecision,
  type ChatMessage,
  type SavedMessage,
} from '#common/chat'
import type { CoachContext } from '#server/services/chat'
import { summarizeGoals, toVariableValues } from '#server/services/chat'
import { areaMentioned, composeFallbackReply } from '#server/services/chat'

const ai = (id: string, text: string): ChatMessage => ({ id, text, sender: 'ai', timestamp: '2026-11-21T12:00:00.000Z' })
const user = (id: string, text: string): SavedMessage => ({ id, text, sender: 'user', timestamp: '2026-11-21T12:00:00.000Z' })

describe('duplicate rules for assistant messages (spec 2 §5)', () => {
  const cases: Array<[string, ChatMessage[], string, AssistantMessageDecision]> = [
    ['nothing stored: appended', [], 'Hello there, how are you today?', { action: 'append' }],
    ['an exact match is a duplicate', [ai('a', 'Let us plan your week.')], 'Let us plan your week.', { action: 'skip', duplicateOf: 'a' }],
    ['an exact match is a duplicate even when short', [ai('a', 'Okay.')], 'Okay.', { action: 'skip', duplicateOf: 'a' }],
    ['exact match compares trimmed text', [ai('a', 'Great work today!')], '  Great work today!  ', { action: 'skip', duplicateOf: 'a' }],
    [
      'a shorter message contained in a stored one (stored longer than 5) is a duplicate',
      [ai('a', 'Great work today. Keep it going tomorrow!')],
      'Keep it going tomorrow!',
      { action: 'skip', duplicateOf: 'a' },
    ],
    [
      'a short message contained in a long stored one is a duplicate (only one side is under 10)',
      [ai('a', 'Okay, let us begin with your fitness.')],
      'Okay',
      { action: 'skip', duplicateOf: 'a' },
    ],
    [
      'a longer message that contains a stored one (longer than 5) replaces it',
      [ai('a', 'Great work today.')],
      'Great work today. Keep it going tomorrow!',
      { action: 'replace', id: 'a' },
    ],
    [
      'a longer message containing a stored one of exactly 6 characters replaces it',
      [ai('a', 'Hello!')],
      'Hello! How was your run this morning?',
      { action: 'replace', id: 'a' },
    ],
    [
      'a stored message of 5 characters or fewer is never replaced',
      [ai('a', 'Hello')],
      'Hello Jordan, how was your run this morning?',
      { action: 'append' },
    ],
    // Without the short-pair rule each of these three would be a skip or a replace.
    ['pairs where both are under 10 characters are not compared: contained', [ai('a', 'Yes sure!')], 'sure!', { action: 'append' }],
    ['pairs where both are under 10 characters are not compared: containing', [ai('a', 'Yes, ok')], 'Yes, ok!!', { action: 'append' }],
    ['pairs where both are under 10 characters are not compared: one character longer', [ai('a', 'Great!')], 'Great!!', { action: 'append' }],
    ['a pair where the new one is 10 characters is compared', [ai('a', 'Great!')], 'Great! Go!', { action: 'replace', id: 'a' }],
    ['unrelated messages are appended', [ai('a', 'What did you eat today?')], 'How did you sleep last night?', { action: 'append' }],
    ['user messages are never compared', [user('u', 'Great work today.')], 'Great work today.', { action: 'append' }],
    [
      'the newest stored message contained in a longer one is the one replaced',
      [ai('a', 'Good morning!'), ai('b', 'Let us talk fitness.')],
      'Good morning! Let us talk fitness.',
      { action: 'replace', id: 'b' },
    ],
    [
      'a duplicate wins over a replacement',
      [ai('a', 'Good morning! Let us talk fitness.'), ai('b', 'Good morning!')],
      'Good morning! Let us talk',
      { action: 'skip', duplicateOf: 'a' },
    ],
  ]

  it.each(cases)('%s', (_name, stored, text, expected) => {
    expect(decideAssistantMessage(stored, text)).toEqual(expected)
  })

  it('applies a decision to a list: append, skip, replace in place keeping the id', () => {
    const start = [user('u1', 'Hi'), ai('a1', 'Welcome back.')]
    const appended = addAssistantMessage(start, ai('a2', 'How did the week go?'))
    expect(appended.outcome).toBe('appended')
    expect(appended.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'a2'])
    const skipped = addAssistantMessage(appended.messages, ai('a3', 'How did the week go?'))
    expect(skipped.outcome).toBe('skipped')
    expect(skipped.message.id).toBe('a2')
    expect(skipped.messages).toEqual(appended.messages)
    const replaced = addAssistantMessage(appended.messages, ai('a4', 'Welcome back. Ready for today?'))
    expect(replaced.outcome).toBe('replaced')
    expect(replaced.message).toMatchObject({ id: 'a1', text: 'Welcome back. Ready for today?' })
    expect(replaced.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'a2'])
  })

  it.each([
    [null, 'hello', true],
    ['hello', 'hello', false],
    ['hello', '  hello ', false],
    ['hello', 'hello there', true],
    [null, '   ', false],
    ['', '', false],
  ])('a user transcript after %o: %o accepted = %o', (previous, next, accepted) => {
    expect(acceptUserTranscript(previous, next)).toBe(accepted)
  })
})

describe('the title rule (spec 2 §9)', () => {
  it.each([
    ['the first 50 characters plus ...', [user('1', 'I want to get back into running three times a week before summer')], 'I want to get back into running three times a week...'],
    ['a short message still gets ...', [user('1', 'Hi')], 'Hi...'],
    ['exactly 50 characters', [user('1', 'x'.repeat(50))], `${'x'.repeat(50)}...`],
    ['the first USER message, not the assistant greeting', [ai('g', 'Hello! I am your coach.'), user('1', 'Help me sleep')], 'Help me sleep...'],
    ['whitespace runs and new lines collapse', [user('1', '  Plan\n\nmy   week  ')], 'Plan my week...'],
    ['characters are code points (an emoji is not cut in half)', [user('1', `${'a'.repeat(49)}😀 more`)], `${'a'.repeat(49)}😀...`],
    ['no user message: the default title', [ai('g', 'Hello')], 'New Conversation'],
    ['no messages: the default title', [], 'New Conversation'],
  ])('%s', (_name, messages, title) => {
    expect(titleFromMessages(messages)).toBe(title)
  })
})

describe('merging saved content (the autosave)', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString()
  it('keeps stored messages, adds new ones by time, never duplicates', () => {
    const first1 = { ...user('u1', 'one'), timestamp: t(1) }
    const stored = [first1, { ...ai('a1', 'Reply number one.'), timestamp: t(2) }]
    const incoming = [first1, { ...user('u0', 'zero'), timestamp: t(0) }, { ...user('u2', 'two'), timestamp: t(3) }]
    const first = mergeMessages(stored, incoming)
    expect(first.changed).toBe(true)
    expect(first.messages.map((m) => m.id)).toEqual(['u0', 'u1', 'a1', 'u2'])
    const again = mergeMessages(first.messages, incoming)
    expect(again.changed).toBe(false)
    expect(again.messages).toEqual(first.messages)
  })

  it('the stored version of a message wins over an edited copy', () => {
    const stored = [user('u1', 'what I said')]
    expect(mergeMessages(stored, [user('u1', 'something else')]).messages).toEqual(stored)
  })

  it('places each new message after the last stored one not later than it, as placing them one by one in time order did', () => {
    // The rule before it was made linear: insert one message at a time, walking back from the end.
    const oneByOne = (stored: readonly ChatMessage[], added: readonly ChatMessage[]) => {
      const list = [...stored]
      for (const message of added) {
        let index = list.length
        while (index > 0 && Date.parse(list[index - 1]!.timestamp) > Date.parse(message.timestamp)) index -= 1
        list.splice(index, 0, message)
      }
      return list.map((m) => m.id)
    }
    let seed = 7
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let round = 0; round < 200; round++) {
      // Stored lists are in time order except where the server appended at its own time.
      const stored = Array.from({ length: random(12) }, (_, i) => ({ ...ai(`s${i}`, `stored ${i}`), timestamp: t(i * 2 + (random(5) === 0 ? -random(10) : 0) + 10) }))
      const added = Array.from({ length: 1 + random(6) }, (_, i) => ({ ...user(`n${i}`, `new ${i}`), timestamp: t(random(40)) }))
      const sortedAdded = [...added].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
      expect(mergeMessages(stored, added).messages.map((m) => m.id), `round ${round}`).toEqual(oneByOne(stored, sortedAdded))
    }
  })

  it('does work in proportion to the messages, not to stored times sent: the worst save reads each stored message a bounded number of times', () => {
    // A full conversation of long messages, and a full batch of new ones all earlier than every
    // stored message (each would walk the whole list if placed one by one).
    let reads = 0
    const long = 'x'.repeat(STORED_MESSAGE_MAX - 10)
    const counted = (i: number): ChatMessage => {
      const text = `${long}${i}`
      const timestamp = t(100 + i)
      return Object.defineProperties({ id: `s${i}`, sender: i % 2 ? 'ai' : 'user' } as ChatMessage, {
        text: { enumerable: true, get: () => (reads++, text) },
        timestamp: { enumerable: true, get: () => (reads++, timestamp) },
      })
    }
    const stored = Array.from({ length: CONVERSATION_MESSAGES_MAX }, (_, i) => counted(i))
    const incoming = Array.from({ length: SAVE_BATCH_MAX }, (_, i) => user(`n${i}`, `new ${i}`))
    const { messages, changed } = mergeMessages(stored, incoming)
    expect(changed).toBe(true)
    expect(messages).toHaveLength(CONVERSATION_MESSAGES_MAX + SAVE_BATCH_MAX)
    expect(messages.slice(0, SAVE_BATCH_MAX).map((m) => m.id)).toEqual(incoming.map((m) => m.id))
    // One read of each stored timestamp; placed one by one it was about 1000 x 200.
    expect(reads).toBeLessThanOrEqual(2 * CONVERSATION_MESSAGES_MAX)
  })

  it('reads each stored message once when deciding about a reply', () => {
    let reads = 0
    const stored = Array.from({ length: CONVERSATION_MESSAGES_MAX }, (_, i) => {
      const text = `Stored reply number ${i} about the plan for the week ahead.`
      return Object.defineProperty({ id: `a${i}`, sender: 'ai', timestamp: t(i) } as ChatMessage, 'text', { enumerable: true, get: () => (reads++, text) })
    })
    expect(decideAssistantMessage(stored, 'A new reply about something else entirely.')).toEqual({ action: 'append' })
    expect(reads).toBe(CONVERSATION_MESSAGES_MAX)
  })
})

describe('sizes', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['a😀é€', 10],
    ['\ud800', 3],
  ])('utf8Length(%j) = %i, as TextEncoder counts', (text, bytes) => {
    expect(utf8Length(text)).toBe(bytes)
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length)
  })

  it('textBytes sums the message texts', () => {
    expect(textBytes([user('1', 'héllo'), ai('2', '😀')])).toBe(10)
  })
})

describe('schemas', () => {
  it('trims and bounds a message to send', () => {
    expect(SendMessageBodySchema.parse({ text: '  hi  ' })).toEqual({ text: 'hi' })
    expect(SendMessageBodySchema.safeParse({ text: ' \n ' }).success).toBe(false)
    expect(SendMessageBodySchema.safeParse({ text: 'x'.repeat(4001) }).success).toBe(false)
    expect(SendMessageBodySchema.safeParse({ text: 'x', id: 'not-a-uuid' }).success).toBe(false)
  })

  it('accepts a stored message only with a safe id, a sender and an ISO time', () => {
    expect(ChatMessageSchema.safeParse(user('ok-1', 'hi')).success).toBe(true)
    expect(ChatMessageSchema.safeParse({ ...user('bad id', 'hi') }).success).toBe(false)
    expect(ChatMessageSchema.safeParse({ ...user('x', 'hi'), sender: 'system' }).success).toBe(false)
    expect(ChatMessageSchema.safeParse({ ...user('x', 'hi'), timestamp: 'yesterday' }).success).toBe(false)
  })

  it("a save carries only the user's own messages, each as long as a person may type", () => {
    expect(SaveContentBodySchema.safeParse({ content: [user('u1', 'hi')] }).success).toBe(true)
    const assistant = SaveContentBodySchema.safeParse({ content: [user('u1', 'hi'), ai('a1', 'Hello from the client')] })
    expect(assistant.success).toBe(false)
    expect(assistant.error?.issues[0]).toMatchObject({ path: ['content', 1, 'sender'], message: CHAT_ERRORS.onlyUserMessages })
    expect(SaveContentBodySchema.safeParse({ content: [user('u1', 'x'.repeat(4001))] }).success).toBe(false)
    expect(SaveContentBodySchema.safeParse({ content: Array.from({ length: SAVE_BATCH_MAX + 1 }, (_, i) => user(`u${i}`, 'hi')) }).success).toBe(false)
  })

  it('a page of a conversation: before is a message id, limit 1 to 200 from the query string', () => {
    expect(ConversationQuerySchema.parse({})).toEqual({})
    expect(ConversationQuerySchema.parse({ before: 'a1', limit: '20' })).toEqual({ before: 'a1', limit: 20 })
    for (const limit of ['0', '201', '2.5', 'many']) expect(ConversationQuerySchema.safeParse({ limit }).success, limit).toBe(false)
    expect(ConversationQuerySchema.safeParse({ before: 'not an id' }).success).toBe(false)
  })
})

function context(overrides: Partial<CoachContext> = {}): CoachContext {
  const areas: CoachContext['areas'] = [
    { area: 'faith', title: 'Faith', score: 8, focus: [], notes: null },
    { area: 'fitness', title: 'Fitness & Health', score: 3, focus: ['Exercise at least three times a week'], notes: null },
    { area: 'finance', title: 'Finance', score: 4, focus: ['Pay off debt'], notes: null },
    { area: 'friends', title: 'Friends & Social Life', score: 5, focus: [], notes: null },
  ]
  const base: CoachContext = {
    userId: 'u-1',
    name: 'Jordan Rivera',
    firstName: 'Jordan',
    email: 'jordan@example.com',
    phoneNumber: '2025234567',
    timezone: 'America/Chicago',
    dailyCallTime: '07:30',
    areas,
    lowestAreas: [areas[1]!, areas[2]!, areas[3]!],
    goal90Days: 'Run a 10K without stopping',
    goal12Months: 'Finish a half marathon',
    goal5Years: null,
    obstacles: 'Late nights at work',
    work: null,
    goalsSummary: '',
    now: new Date('2026-11-21T14:00:00Z'), // 08:00 in Chicago
    ...overrides,
  }
  return { ...base, goalsSummary: summarizeGoals(base) }
}

const questions = (text: string) => text.match(/\?/g)?.length ?? 0

describe('the fallback coach', () => {
  it('answers words about suicide or self-harm with where help is, not with coaching', () => {
    for (const turn of [1, 3]) {
      const reply = composeFallbackReply(context(), 'Honestly I just want to end it all', turn)
      expect(reply).toBe(
        'Jordan, if you are thinking about suicide or hurting yourself, you are not alone. Call or text 988 (Suicide & Crisis Lifeline) any time, or call 911 if you are in danger now. I am an AI coach and cannot help in a crisis; the people there can, right now.',
      )
    }
    expect(composeFallbackReply(context(), 'This workout is killing me', 1)).toContain('Run a 10K')
  })

  it('greets by name, names the lowest-scored areas and the 90-day goal, asks one question, says the AI coach is not configured', () => {
    const reply = composeFallbackReply(context(), 'Hi!', 1)
    expect(reply).toMatch(/^Good morning, Jordan!/)
    expect(reply).toContain('fitness & health (3/10), finance (4/10) and friends & social life (5/10)')
    expect(reply).toContain('"Run a 10K without stopping"')
    expect(questions(reply)).toBe(1)
    expect(reply).toContain('the full AI coach is not configured')
  })

  it('varies with the turn: opening, focus area, goal wording and question change', () => {
    const replies = [1, 2, 3, 4].map((turn) => composeFallbackReply(context(), 'ok', turn))
    expect(new Set(replies).size).toBe(4)
    expect(replies[1]).toMatch(/^Thanks for sharing that, Jordan\./)
    expect(replies[1]).toContain('finance')
    expect(replies[2]).toContain('friends & social life')
    for (const reply of replies) {
      expect(questions(reply)).toBe(1)
      expect(reply).toContain('Jordan')
      expect(reply).toMatch(/not configured/)
    }
  })

  it('follows the area the message is about, and the obstacle when the user is stuck', () => {
    const reply = composeFallbackReply(context(), "I'm stuck with my budget and debt", 2)
    expect(reply).toContain('You brought up finance, which you rated 4/10.')
    expect(reply).toContain('"Late nights at work"')
    expect(reply).toMatch(/expense|payday|bill or debt/)
    expect(questions(reply)).toBe(1)
  })

  it('mentions the lowest areas when the message is about a strong one', () => {
    const reply = composeFallbackReply(context(), 'Church was great this week', 3)
    expect(reply).toContain('You brought up faith, which you rated 8/10.')
    expect(reply).toContain('Your lowest-rated areas are still fitness & health (3/10)')
  })

  it('without goals it says so and still asks one question', () => {
    const reply = composeFallbackReply(context({ areas: [], lowestAreas: [], goal90Days: null, goal12Months: null, obstacles: null }), 'hello', 1)
    expect(reply).toContain('You have not set your goals yet')
    expect(questions(reply)).toBe(1)
    expect(reply).toMatch(/not configured/)
  })

  it('never lets the user\'s own text add a second question', () => {
    const reply = composeFallbackReply(context({ goal90Days: 'Can I run a 10K?' }), 'hi', 1)
    expect(questions(reply)).toBe(1)
    expect(reply).toContain('"Can I run a 10K"')
  })

  it.each([
    ['I skipped the gym again', 'fitness'],
    ['My money situation', 'finance'],
    ['Time with my kids', 'family'],
    ['I want to learn Spanish', 'personal_development'],
    ['Hello', null],
  ])('%s is about %s', (text, area) => {
    expect(areaMentioned(text)).toBe(area)
  })
})

describe('user metadata as variable values (spec 2 §3)', () => {
  it('sends every field as a string', () => {
    const values = toVariableValues(context())
    expect(values).toMatchObject({
      userId: 'u-1',
      userName: 'Jordan Rivera',
      firstName: 'Jordan',
      phoneNumber: '2025234567',
      email: 'jordan@example.com',
      timezone: 'America/Chicago',
      dailyCallTime: '07:30',
      timestamp: '2026-11-21T14:00:00.000Z',
    })
    expect(values.goals).toContain('- Fitness & Health: 3/10; focus: Exercise at least three times a week')
    expect(values.goals).toContain('- #1 goal in 90 days: Run a 10K without stopping')
    expect(values.goalsSummary).toContain('Fitness & Health 3/10')
    expect(Object.values(values).every((value) => typeof value === 'string')).toBe(true)
  })
})
