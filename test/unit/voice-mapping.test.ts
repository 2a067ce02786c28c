import { describe, expect, it } from 'vitest'
import { STORED_MESSAGE_MAX } from '#common/chat'
import { VoiceServerMessageSchema } from '#common/voice'
import { endReasonOf, mapVapiMessage, transcriptText, type UpstreamEvent } from '#server/services/voice'

const relayed = (events: UpstreamEvent[]) => events.flatMap((event) => (event.kind === 'relay' ? [event.message] : []))

describe("Vapi's socket messages mapped into the gateway's protocol", () => {
  it('maps a transcript, partial or final, with only role, finality and text; a final is also saved', () => {
    const partial = mapVapiMessage({ type: 'transcript', role: 'user', transcriptType: 'partial', transcript: 'I want', isFiltered: false }, false)
    expect(partial).toEqual([{ kind: 'relay', message: { type: 'transcript', role: 'user', final: false, text: 'I want' } }])
    const final = mapVapiMessage({ type: 'transcript', role: 'assistant', transcriptType: 'final', transcript: 'Great, let us plan.', assistantId: 'asst_1' }, false)
    expect(final).toEqual([
      { kind: 'relay', message: { type: 'transcript', role: 'assistant', final: true, text: 'Great, let us plan.' } },
      { kind: 'final', role: 'assistant', text: 'Great, let us plan.' },
    ])
    // The bracketed server-message type means finals only.
    expect(mapVapiMessage({ type: 'transcript[transcriptType="final"]', role: 'user', transcript: 'Yes' }, false)).toContainEqual({ kind: 'final', role: 'user', text: 'Yes' })
  })

  it('drops transcripts it cannot read (unknown role, no text, unknown transcriptType)', () => {
    expect(mapVapiMessage({ type: 'transcript', role: 'system', transcriptType: 'final', transcript: 'x' }, false)).toEqual([])
    expect(mapVapiMessage({ type: 'transcript', role: 'user', transcriptType: 'final', transcript: 42 }, false)).toEqual([])
    expect(mapVapiMessage({ type: 'transcript', role: 'user', transcriptType: 'draft', transcript: 'x' }, false)).toEqual([])
  })

  it('maps speech updates, and the user starting to speak over the assistant is an interruption', () => {
    expect(relayed(mapVapiMessage({ type: 'speech-update', role: 'assistant', status: 'started', turn: 1 }, false))).toEqual([{ type: 'speech', role: 'assistant', status: 'started' }])
    expect(relayed(mapVapiMessage({ type: 'speech-update', role: 'user', status: 'started' }, false))).toEqual([{ type: 'speech', role: 'user', status: 'started' }])
    expect(relayed(mapVapiMessage({ type: 'speech-update', role: 'user', status: 'started' }, true))).toEqual([{ type: 'interrupted' }, { type: 'speech', role: 'user', status: 'started' }])
    expect(relayed(mapVapiMessage({ type: 'speech-update', role: 'user', status: 'stopped' }, true))).toEqual([{ type: 'speech', role: 'user', status: 'stopped' }])
    expect(mapVapiMessage({ type: 'speech-update', role: 'user', status: 'paused' }, false)).toEqual([])
  })

  it('maps user-interrupted, and status updates to live or ended with the reason', () => {
    expect(relayed(mapVapiMessage({ type: 'user-interrupted', turnId: 't1' }, true))).toEqual([{ type: 'interrupted' }])
    expect(mapVapiMessage({ type: 'status-update', status: 'in-progress' }, false)).toEqual([{ kind: 'live' }])
    expect(mapVapiMessage({ type: 'status-update', status: 'ended', endedReason: 'assistant-said-end-call-phrase' }, false)).toEqual([
      { kind: 'ended', reason: 'assistant-ended', endedReason: 'assistant-said-end-call-phrase' },
    ])
    expect(mapVapiMessage({ type: 'status-update', status: 'ringing' }, false)).toEqual([])
  })

  it('drops every type off the whitelist and anything that is not an object', () => {
    for (const type of ['conversation-update', 'model-output', 'hang', 'tool-calls', 'function-call', 'end-of-call-report', 'metadata', 'voice-input', 'transfer-update']) {
      expect(mapVapiMessage({ type, messages: [{ role: 'assistant', message: 'hi' }], call: { id: 'c', transport: { websocketCallUrl: 'wss://x' } } }, false)).toEqual([])
    }
    for (const value of [null, 'transcript', 42, [], { role: 'user' }]) expect(mapVapiMessage(value, false)).toEqual([])
  })

  it('copies nothing but the whitelisted fields: every relayed message is the protocol, with no Vapi field', () => {
    const loaded = {
      type: 'transcript',
      role: 'user',
      transcriptType: 'final',
      transcript: 'hello',
      call: { id: 'vapi-call', transport: { websocketCallUrl: 'wss://api.vapi.ai/vapi-call/transport' }, monitor: { controlUrl: 'https://x/control' } },
      artifact: { recordingUrl: 'https://storage/recording.wav' },
    }
    for (const message of relayed(mapVapiMessage(loaded, false))) {
      expect(VoiceServerMessageSchema.parse(message)).toEqual(message)
      expect(JSON.stringify(message)).not.toMatch(/vapi|wss:|https:|call/)
    }
  })

  it('keeps transcript text storable and bounded', () => {
    expect(transcriptText('a\u0000b\uD800c')).toBe('abc')
    expect(transcriptText('x'.repeat(STORED_MESSAGE_MAX + 10))).toHaveLength(STORED_MESSAGE_MAX)
    expect(transcriptText(undefined)).toBeNull()
  })

  it("maps Vapi's ended reasons into the protocol's", () => {
    expect(endReasonOf('customer-ended-call')).toBe('user-ended')
    expect(endReasonOf('assistant-ended-call')).toBe('assistant-ended')
    expect(endReasonOf('assistant-ended-call-with-hangup-task')).toBe('assistant-ended')
    expect(endReasonOf('exceeded-max-duration')).toBe('max-duration')
    expect(endReasonOf('silence-timed-out')).toBe('no-audio')
    expect(endReasonOf('call.in-progress.error-assistant-did-not-receive-customer-audio')).toBe('no-audio')
    expect(endReasonOf('pipeline-error-openai-llm-failed')).toBe('upstream-error')
    expect(endReasonOf(null)).toBe('upstream-error')
  })
})
