import { describe, expect, it } from 'vitest'
import type { VoiceServerMessage } from '#common/voice'
import { isHello, parseServerMessage, voiceSocketUrl } from '../../web/src/lib/voice-protocol'

describe('the gateway protocol as the page reads it', () => {
  it('finds the socket on the page origin, wss: under https:', () => {
    expect(voiceSocketUrl({ protocol: 'https:', host: 'coach.example:8443' })).toBe('wss://coach.example:8443/api/voice')
    expect(voiceSocketUrl({ protocol: 'http:', host: '127.0.0.1:3000' })).toBe('ws://127.0.0.1:3000/api/voice')
  })

  it('takes only messages of the protocol', () => {
    expect(parseServerMessage('{"type":"hello","v":1}')).toEqual({ type: 'hello', v: 1 })
    expect(parseServerMessage('{"type":"transcript","role":"user","final":false,"text":"Hi"}')).toEqual({ type: 'transcript', role: 'user', final: false, text: 'Hi' })
    expect(parseServerMessage('{"type":"ended","reason":"user-ended","conversationId":null}')).toEqual({ type: 'ended', reason: 'user-ended', conversationId: null })
    expect(parseServerMessage('{"type":"hello","v":2}')).toBeNull()
    expect(parseServerMessage('{"type":"transcript","role":"system","final":true,"text":"x"}')).toBeNull()
    expect(parseServerMessage('{"type":"status-update","status":"in-progress"}')).toBeNull()
    expect(parseServerMessage('not json')).toBeNull()
    expect(parseServerMessage(new ArrayBuffer(4))).toBeNull()
  })

  it("takes the dashboard's phone-call messages too", () => {
    const message: VoiceServerMessage = { type: 'phone-call', callId: '6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11', status: 'ringing', endedReason: null }
    expect(parseServerMessage(JSON.stringify(message))).toEqual(message)
    expect(parseServerMessage('{"type":"phone-call","callId":"x"}')).toBeNull()
  })

  it('tells a hello of another version from other frames', () => {
    expect(isHello('{"type":"hello","v":2}')).toBe(true)
    expect(isHello('{"type":"status","status":"listening"}')).toBe(false)
    expect(isHello('null')).toBe(false)
    expect(isHello('{')).toBe(false)
  })
})
