import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { dedupeKeyOf, HMAC_WINDOW_MS, outcomeOf, reportOf, retryDecision, verifyVapiWebhook } from '#server/services/calls'

const NOW = new Date('2026-06-15T14:00:00Z')
const body = Buffer.from('{"message":{"type":"status-update","status":"ringing","call":{"id":"c1"}}}')

describe('webhook authentication', () => {
  const secret = { mode: 'secret' as const, secret: 's3cret-value' }
  const hmac = { mode: 'hmac' as const, secret: 'hmac-key' }
  const sign = (timestamp: string, raw = body) => createHmac('sha256', 'hmac-key').update(`${timestamp}.${raw.toString()}`).digest('hex')

  it('accepts the X-Vapi-Secret header only when it is exactly the secret', () => {
    expect(verifyVapiWebhook(secret, { 'x-vapi-secret': 's3cret-value' }, body, NOW)).toBe(true)
    expect(verifyVapiWebhook(secret, { 'x-vapi-secret': 's3cret-valuE' }, body, NOW)).toBe(false)
    expect(verifyVapiWebhook(secret, { 'x-vapi-secret': 's3cret-value ' }, body, NOW)).toBe(false)
    expect(verifyVapiWebhook(secret, { 'x-vapi-secret': '' }, body, NOW)).toBe(false)
    expect(verifyVapiWebhook(secret, {}, body, NOW)).toBe(false)
    expect(verifyVapiWebhook(undefined, { 'x-vapi-secret': 's3cret-value' }, body, NOW)).toBe(false)
  })

  it('accepts an HMAC of "{timestamp}.{raw body}" inside the window, in seconds or milliseconds', () => {
    const seconds = String(Math.floor(NOW.getTime() / 1000))
    const ms = String(NOW.getTime())
    expect(verifyVapiWebhook(hmac, { 'x-signature': sign(seconds), 'x-timestamp': seconds }, body, NOW)).toBe(true)
    expect(verifyVapiWebhook(hmac, { 'x-signature': `sha256=${sign(ms)}`, 'x-timestamp': ms }, body, NOW)).toBe(true)
    // Another body, a stale or future timestamp, a missing header: refused.
    expect(verifyVapiWebhook(hmac, { 'x-signature': sign(seconds), 'x-timestamp': seconds }, Buffer.from(body.toString().replace('ringing', 'ended')), NOW)).toBe(false)
    const stale = String(Math.floor((NOW.getTime() - HMAC_WINDOW_MS - 1000) / 1000))
    expect(verifyVapiWebhook(hmac, { 'x-signature': sign(stale), 'x-timestamp': stale }, body, NOW)).toBe(false)
    const future = String(NOW.getTime() + HMAC_WINDOW_MS + 1000)
    expect(verifyVapiWebhook(hmac, { 'x-signature': sign(future), 'x-timestamp': future }, body, NOW)).toBe(false)
    expect(verifyVapiWebhook(hmac, { 'x-signature': sign(seconds) }, body, NOW)).toBe(false)
    // The secret header is not accepted in HMAC mode.
    expect(verifyVapiWebhook(hmac, { 'x-vapi-secret': 'hmac-key' }, body, NOW)).toBe(false)
  })
})

describe('idempotency keys', () => {
  it('keys a status update by call and status, and the report by call', () => {
    expect(dedupeKeyOf({ type: 'status-update', status: 'ringing', call: { id: 'c1' } })).toBe('c1:status-update:ringing')
    expect(dedupeKeyOf({ type: 'end-of-call-report', call: { id: 'c1' } })).toBe('c1:end-of-call-report')
    expect(dedupeKeyOf({ type: 'speech-update', call: { id: 'c1' } })).toBeNull()
    expect(dedupeKeyOf({ type: 'status-update', status: 'ended' })).toBeNull()
  })
})

describe('how a call ended', () => {
  it.each([
    ['customer-ended-call', 'completed'],
    ['assistant-ended-call', 'completed'],
    ['exceeded-max-duration', 'completed'],
    ['silence-timed-out', 'completed'],
    ['customer-did-not-answer', 'no_answer'],
    ['call.in-progress.error-providerfault-outbound-sip-480-temporarily-unavailable', 'no_answer'],
    ['twilio-failed-to-connect-call', 'no_answer'],
    ['customer-busy', 'busy'],
    ['voicemail', 'voicemail'],
    ['manually-canceled', 'cancelled'],
    ['scheduled-call-deleted', 'cancelled'],
    ['call.start.error-subscription-insufficient-credits', 'failed'],
    ['assistant-not-found', 'failed'],
    ['call.in-progress.error-vapifault-transport-never-connected', 'failed'],
  ])('%s → %s', (reason, status) => {
    expect(outcomeOf(reason)).toBe(status)
  })
})

describe('the retry ladder', () => {
  const call = { slot: 'daily' as const, attempt: 0, localDate: '2026-06-15', timeZone: 'America/New_York' }
  const always = () => true
  // 14:00Z = 10:00 AM in New York (EDT).
  it('retries a call that did not reach the person after 10, then 30 minutes, at most twice', () => {
    expect(retryDecision(call, 'no_answer', 'customer-did-not-answer', NOW, always)).toEqual({ retry: true, at: new Date('2026-06-15T14:10:00Z') })
    expect(retryDecision({ ...call, attempt: 1 }, 'busy', 'customer-busy', NOW, always)).toEqual({ retry: true, at: new Date('2026-06-15T14:30:00Z') })
    expect(retryDecision({ ...call, attempt: 2 }, 'voicemail', 'voicemail', NOW, always)).toEqual({ retry: false, reason: 'no_attempts_left' })
  })

  it('never retries a call that reached the person, was cancelled, or failed on our side for good', () => {
    expect(retryDecision(call, 'completed', 'customer-ended-call', NOW, always)).toBeNull()
    expect(retryDecision(call, 'cancelled', 'manually-canceled', NOW, always)).toBeNull()
    expect(retryDecision(call, 'failed', 'assistant-not-found', NOW, always)).toBeNull()
  })

  it('retries a concurrency-limit start error (it clears with time)', () => {
    expect(retryDecision(call, 'failed', 'call.start.error-subscription-concurrency-limit-reached', NOW, always)).toMatchObject({ retry: true })
  })

  it('keeps retries between 8 AM and 9 PM local, on the same local date', () => {
    // 8:55 PM EDT: a retry at 9:05 PM is outside the window.
    expect(retryDecision(call, 'no_answer', 'customer-did-not-answer', new Date('2026-06-16T00:55:00Z'), always)).toEqual({ retry: false, reason: 'outside_allowed_hours' })
    // 6:00 AM: the person chose an early call; a retry at 6:10 AM is not theirs to get.
    expect(retryDecision(call, 'no_answer', 'customer-did-not-answer', new Date('2026-06-15T10:00:00Z'), always)).toEqual({ retry: false, reason: 'outside_allowed_hours' })
    // 7:55 AM + 10 minutes = 8:05 AM: inside.
    expect(retryDecision(call, 'no_answer', 'customer-did-not-answer', new Date('2026-06-15T11:55:00Z'), always)).toMatchObject({ retry: true })
  })

  it('does not retry a test call, or a person who is no longer eligible', () => {
    expect(retryDecision({ ...call, slot: 'test' }, 'no_answer', 'customer-did-not-answer', NOW, always)).toEqual({ retry: false, reason: 'not_a_daily_call' })
    expect(retryDecision(call, 'no_answer', 'customer-did-not-answer', NOW, () => false)).toEqual({ retry: false, reason: 'not_eligible' })
  })
})

describe('the end-of-call report', () => {
  it('reads the summary, areas, mood, commitments, transcript and duration', () => {
    const report = reportOf({
      endedReason: 'customer-ended-call',
      durationSeconds: 312.4,
      startedAt: '2026-06-15T14:00:05Z',
      endedAt: '2026-06-15T14:05:17Z',
      analysis: { summary: 'Talked about sleep and the budget.' },
      artifact: {
        transcript: 'AI: Hi Dana\nUser: Hi',
        structuredOutputs: {
          'f3a1': {
            name: 'coaching_call_report',
            result: {
              areasDiscussed: ['fitness', 'finance', 'astrology'],
              summary: 'x',
              mood: 7,
              energy: 11,
              commitments: ['Walk 20 minutes daily', ''],
              commitmentsReviewed: [{ number: 1, commitment: 'Read ten pages', outcome: 'missed' }],
            },
          },
        },
      },
    })
    expect(report).toEqual({
      endedReason: 'customer-ended-call',
      summary: 'Talked about sleep and the budget.',
      transcript: 'AI: Hi Dana\nUser: Hi',
      durationSeconds: 312.4,
      startedAt: new Date('2026-06-15T14:00:05Z'),
      endedAt: new Date('2026-06-15T14:05:17Z'),
      areasDiscussed: ['fitness', 'finance'],
      mood: 7,
      energy: 10,
      commitments: ['Walk 20 minutes daily'],
      commitmentsReviewed: [{ number: 1, commitment: 'Read ten pages', outcome: 'missed' }],
      facts: { learned: [], changed: [] },
    })
  })

  it('uses durationMs when durationSeconds is missing, and leaves out what a call that never connected has not', () => {
    const report = reportOf({ endedReason: 'customer-did-not-answer', durationMs: 0, artifact: {}, analysis: {} })
    expect(report).toMatchObject({ durationSeconds: 0, summary: null, transcript: null, areasDiscussed: [], mood: null, commitments: [] })
  })
})
