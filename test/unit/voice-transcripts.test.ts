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
    async open() {
      store.opened++
      const id = `conversation-${++n}`
      conversations.set(id, [])
      return id
    },
    async addUser(_userId, id, text) {
      conversations.get(id)!.push({ id: `m${conversations.get(id)!.length}`, text, sender: 'user', timestamp: new Date(1000 + conversations.get(id)!.length).toISOString() })
    },
    async addAssistant(_userId, id, text) {
      const messages = conversations.get(id)!
      const result = addAssistantMessage(messages, { id: `m${messages.length}`, text, sender: 'ai', timestamp: new Date(1000 + messages.length).toISOString() })
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
    expect(store.conversations.get(recorder.conversationId!)!.map((m) => [m.sender, m.text])).toEqual([
      ['ai', 'Hi Dana, what would you like to work on today?'],
      ['user', 'My running.'],
      ['ai', 'Let us plan three runs this week.'],
      ['user', 'And stretching'],
    ])
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
