import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '#common/chat'
import { applyTranscript, initialTranscriptState, type TranscriptEvent, type TranscriptState } from '../../web/src/features/chat/voice/transcripts'

/** Plays transcripts through the rules, the way the chat does, with predictable ids. */
function play(events: readonly TranscriptEvent[], start: ChatMessage[] = []) {
  let state: TranscriptState = initialTranscriptState()
  let messages = start
  let next = 0
  const create = (sender: ChatMessage['sender'], text: string): ChatMessage => ({ id: `m${++next}`, text, sender, timestamp: '2026-11-24T10:00:00.000Z' })
  for (const event of events) ({ state, messages } = applyTranscript(state, messages, event, create))
  return { state, messages, said: messages.map((message) => `${message.sender}: ${message.text}`) }
}

const partial = (role: TranscriptEvent['role'], text: string): TranscriptEvent => ({ role, final: false, text })
const final = (role: TranscriptEvent['role'], text: string): TranscriptEvent => ({ role, final: true, text })

describe('live transcripts', () => {
  it('replace each other in place, one line per speaker, and never become messages', () => {
    const { state, said } = play([partial('user', 'I want'), partial('assistant', 'Sure'), partial('user', 'I want to run'), partial('user', 'I want to run more')])
    expect(state.live).toEqual({ user: 'I want to run more', assistant: 'Sure' })
    expect(said).toEqual([])
  })

  it("end with the speaker's final line, which becomes a message; the other speaker's line stays", () => {
    const { state, said } = play([partial('assistant', 'How are'), partial('user', 'Hel'), final('user', ' Hello coach ')])
    expect(state.live).toEqual({ user: null, assistant: 'How are' })
    expect(said).toEqual(['user: Hello coach'])
  })

  it('a blank partial clears the line', () => {
    expect(play([partial('user', 'Hi'), partial('user', '  ')]).state.live.user).toBeNull()
  })
})

describe('user transcripts (spec 2 §5)', () => {
  it('are accepted only when non-empty and different from the previous one', () => {
    const { said, state } = play([
      final('user', '   '),
      final('user', 'I ran five kilometres'),
      final('user', 'I ran five kilometres '),
      final('user', 'Then I stretched'),
      final('user', 'I ran five kilometres'),
    ])
    expect(said).toEqual(['user: I ran five kilometres', 'user: Then I stretched', 'user: I ran five kilometres'])
    expect(state.lastUserTranscript).toBe('I ran five kilometres')
  })
})

describe('assistant transcripts go through the duplicate rules (spec 2 §5)', () => {
  it('an exact repeat is skipped', () => {
    expect(play([final('assistant', 'Great job today!'), final('assistant', 'Great job today!')]).said).toEqual(['ai: Great job today!'])
  })

  it('a shorter line contained in a stored one is skipped', () => {
    expect(play([final('assistant', 'Great job on your run today!'), final('assistant', 'your run today')]).said).toEqual(['ai: Great job on your run today!'])
  })

  it('a longer line containing a stored one replaces it in place, under its id', () => {
    const { messages } = play([final('assistant', 'Great job'), final('user', 'Thanks'), final('assistant', 'Great job on your run today!')])
    expect(messages.map(({ id, sender, text }) => ({ id, sender, text }))).toEqual([
      { id: 'm1', sender: 'ai', text: 'Great job on your run today!' },
      { id: 'm2', sender: 'user', text: 'Thanks' },
    ])
  })

  it('pairs both under 10 characters are compared only for equality', () => {
    expect(play([final('assistant', 'Okay now'), final('assistant', 'Okay')]).said).toEqual(['ai: Okay now', 'ai: Okay'])
  })

  it("a user's words never count as an assistant duplicate, and a blank final adds nothing", () => {
    expect(play([final('user', 'Tell me more please'), final('assistant', 'Tell me more please'), final('assistant', ' ')]).said).toEqual([
      'user: Tell me more please',
      'ai: Tell me more please',
    ])
  })

  it('are compared with the messages already on screen', () => {
    const earlier: ChatMessage = { id: 'old', text: 'Welcome back, Avery!', sender: 'ai', timestamp: '2026-11-24T09:00:00.000Z' }
    expect(play([final('assistant', 'Welcome back, Avery!')], [earlier]).said).toEqual(['ai: Welcome back, Avery!'])
  })
})
