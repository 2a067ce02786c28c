import { describe, expect, it } from 'vitest'
import { addAssistantMessage, type ChatMessage } from '#common/chat'
import { TranscriptRules, VoiceRecorder, type VoiceConversations } from '#server/services/voice'

describe('the transcript rules of a voice call', () => {
  it('keeps a user transcript only if it is non-empty and differs from the previous one', () => {
    const rules = new TranscriptRules()
    expect(rules.user('  ')).toBeNull()
    expect(rules.user(' I want to run more ')).toBe('I want to run more')
    expect(rules.user('I want to run more')).toBeNull()
    expect(rules.user('Three times a week')).toBe('Three times a week')
    expect(rules.user('I want to run more')).toBe('I want to run more')
  })

  it('keeps a non-empty assistant line (its duplicates are decided against the stored ones)', () => {
    const rules = new TranscriptRules()
    expect(rules.assistant('')).toBeNull()
    expect(rules.assistant(' Hello there ')).toBe('Hello there')
  })
})

/** The chat's store, in memory, with the same duplicate rules for the assistant's lines. */
function memoryStore() {
  const conversations = new Map<string, ChatMessage[]>()
  let n = 0
  const store: VoiceConversations & { conversations: typeof conversations; opened: number } = {
    conversations,
    opened: 0,
    async check(_userId, id) {
      if (!conversations.has(id)) throw new Error('not found')
    },
    async open(userId, id) {
      if (id) {
        await store.check(userId, id)
        return id
      }
      store.opened++
      const created = `conversation-${++n}`
      conversations.set(created, [])
      return created
    },
    async addUser(_userId, id, text, spoken) {
      const messages = conversations.get(id)!
      messages.push({ id: `m${messages.length}`, text, sender: 'user', timestamp: new Date(1000 + messages.length).toISOString(), ...(spoken ? { spoken: true as const } : {}) })
    },
    async addAssistant(_userId, id, text) {
      const messages = conversations.get(id)!
      const result = addAssistantMessage(messages, { id: `m${messages.length}`, text, sender: 'ai', timestamp: new Date(1000 + messages.length).toISOString(), spoken: true })
      conversations.set(id, result.messages)
      return result.outcome
    },
  }
  return store
}

describe("a voice call's conversation", () => {
  it('is created at the first thing the user says, with the greeting before it, finals once each', async () => {
    const store = memoryStore()
    const recorder = new VoiceRecorder(store, 'user-1', () => {})
    recorder.assistantFinal('Hi Dana, what would you like to work on today?')
    await recorder.flush()
    expect(store.opened).toBe(0)
    recorder.userFinal('My running.')
    recorder.userFinal('My running.')
    recorder.assistantFinal('Let us plan three runs this week.')
    recorder.assistantFinal('Let us plan three runs')
    recorder.typed('  And stretching  ')
    recorder.userFinal('My running.')
    await recorder.flush()
    expect(store.opened).toBe(1)
    expect(store.conversations.get(recorder.conversationId!)!.map((m) => [m.sender, m.text, m.spoken ?? false])).toEqual([
      ['ai', 'Hi Dana, what would you like to work on today?', true],
      ['user', 'My running.', true],
      ['ai', 'Let us plan three runs this week.', true],
      // Typed into the call: not spoken.
      ['user', 'And stretching', false],
    ])
  })

  it('writes into the conversation it was started from, after what it holds, and creates none', async () => {
    const store = memoryStore()
    store.conversations.set('typed', [{ id: 't1', text: 'Typed first', sender: 'user', timestamp: new Date(1).toISOString() }])
    const recorder = new VoiceRecorder(store, 'user-1', () => {}, 'typed')
    recorder.assistantFinal('Hi Dana, what would you like to work on today?')
    await recorder.flush()
    // Nothing is written before the user says something.
    expect(store.conversations.get('typed')).toHaveLength(1)
    expect(recorder.conversationId).toBeNull()
    recorder.userFinal('My running.')
    await recorder.flush()
    expect(store.opened).toBe(0)
    expect(recorder.conversationId).toBe('typed')
    expect(store.conversations.get('typed')!.map((m) => [m.text, m.spoken ?? false])).toEqual([
      ['Typed first', false],
      ['Hi Dana, what would you like to work on today?', true],
      ['My running.', true],
    ])
  })

  it("reports a conversation that is gone (or not the user's) once, and writes nothing", async () => {
    const store = memoryStore()
    const failures: unknown[] = []
    const recorder = new VoiceRecorder(store, 'user-1', (error) => failures.push(error), 'missing')
    recorder.userFinal('Hello')
    recorder.userFinal('Anyone?')
    await recorder.flush()
    expect(failures).toHaveLength(1)
    expect(recorder.conversationId).toBeNull()
    expect(store.conversations.size).toBe(0)
  })

  it('leaves nothing behind when the user said nothing', async () => {
    const store = memoryStore()
    const recorder = new VoiceRecorder(store, 'user-1', () => {})
    recorder.assistantFinal('Hello?')
    recorder.userFinal('   ')
    recorder.typed('')
    await recorder.flush()
    expect(store.opened).toBe(0)
    expect(recorder.conversationId).toBeNull()
  })

  it('stops saving at the first failure and reports it once; the writes keep their order', async () => {
    const store = memoryStore()
    const failures: unknown[] = []
    let fail = false
    const failing: VoiceConversations = { ...store, addUser: async (...args) => (fail ? Promise.reject(new Error('full')) : store.addUser(...args)) }
    const recorder = new VoiceRecorder(failing, 'user-1', (error) => failures.push(error))
    recorder.userFinal('one')
    await recorder.flush()
    fail = true
    recorder.userFinal('two')
    recorder.userFinal('three')
    recorder.assistantFinal('never saved')
    await recorder.flush()
    expect(failures).toHaveLength(1)
    expect(store.conversations.get(recorder.conversationId!)!.map((m) => m.text)).toEqual(['one'])
  })
})
