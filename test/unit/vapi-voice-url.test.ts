import { VapiEnvironment } from '@vapi-ai/server-sdk'
import { describe, expect, it } from 'vitest'
import { VAPI_DEFAULT_API_URL, vapiSocketAllowed } from '#server/integrations/vapi-voice'

describe("a voice call's socket address (websocketCallUrl)", () => {
  it("is wss:// on Vapi's own host when VAPI_API_URL is not set", () => {
    expect(VAPI_DEFAULT_API_URL).toBe('https://api.vapi.ai')
    expect(VAPI_DEFAULT_API_URL).toBe(VapiEnvironment.Default)
    expect(vapiSocketAllowed('wss://api.vapi.ai/7420f27a-30fd-4f49-a995-5549ae7cc00d/transport', undefined)).toBe(true)
    for (const url of [
      'ws://api.vapi.ai/abc/transport',
      'wss://evil.example/abc/transport',
      'wss://api.vapi.ai.evil.example/abc/transport',
      'wss://evil.example/api.vapi.ai/transport',
      'wss://api.vapi.ai:8443/abc/transport',
      'wss://key:secret@api.vapi.ai/abc/transport',
      'https://api.vapi.ai/abc/transport',
      'ws://127.0.0.1:4010/abc/transport',
      'not a url',
      '',
    ]) {
      expect(vapiSocketAllowed(url, undefined), url).toBe(false)
    }
  })

  it('with VAPI_API_URL (a test fake, a proxy), only on its host: ws:// only for a loopback one', () => {
    const fake = 'http://127.0.0.1:4010'
    expect(vapiSocketAllowed('ws://127.0.0.1:4010/abc/transport', fake)).toBe(true)
    expect(vapiSocketAllowed('wss://127.0.0.1:4010/abc/transport', fake)).toBe(true)
    expect(vapiSocketAllowed('ws://127.0.0.1:4011/abc/transport', fake)).toBe(false)
    expect(vapiSocketAllowed('ws://localhost:4010/abc/transport', fake)).toBe(false)
    expect(vapiSocketAllowed('wss://api.vapi.ai/abc/transport', fake)).toBe(false)
    const proxy = 'https://vapi.example.com/base'
    expect(vapiSocketAllowed('wss://vapi.example.com/abc/transport', proxy)).toBe(true)
    expect(vapiSocketAllowed('ws://vapi.example.com/abc/transport', proxy)).toBe(false)
    expect(vapiSocketAllowed('ws://vapi.example.com/abc/transport', 'http://vapi.example.com')).toBe(false)
    expect(vapiSocketAllowed('wss://vapi.example.com/abc/transport', 'http://vapi.example.com')).toBe(true)
  })
})
