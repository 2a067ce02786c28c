import { describe, expect, it } from 'vitest'
import { CRISIS_REPLY, isCrisisMessage, keywordOf, optOutOf } from '#common/texts'
import { coachMessageContent, finalBody, isGsm7, missedCallContent, recapContent, segmentsOf, toGsmFriendly } from '#server/services/texts'

describe('keywords', () => {
  it.each([
    ['STOP', 'stop'],
    [' stop\n', 'stop'],
    ['Stop!', 'stop'],
    ['opt out', 'stop'],
    ['UnSubscribe', 'stop'],
    ['start', 'start'],
    ['Yes.', 'start'],
    ['unstop', 'start'],
    ['help?', 'help'],
    ['INFO', 'help'],
    ['stop please', null],
    ['please stop', null],
    ['stopp', null],
    ['', null],
    ['yes please', null],
  ])('%j → %s', (body, family) => {
    expect(keywordOf(body)).toBe(family)
  })
})

describe('an opt-out in the person’s own words (FCC: revocation by any reasonable means)', () => {
  it.each([
    'stop please',
    'please stop',
    'STOP TEXTING ME!!',
    'Stop calling me',
    'Quit texting me',
    'stop it now',
    'stop all texts',
    'Quit',
    'End',
    'end these texts',
    'Unsubscribe me please',
    'unsub',
    'opt me out',
    'I want to opt out',
    'I revoke my consent to these calls',
    'I withdraw my consent',
    'Don’t text me anymore',
    'do not call me again',
    'Do not text or call me',
    "Don't send me texts",
    'never text me again',
    'I dont want any more texts',
    'I no longer want these texts',
    'no more calls',
    'remove me from your list',
    'Please remove my number',
    'take me off this list',
    'leave me alone',
    'Wrong number',
  ])('%j revokes', (body) => {
    expect(optOutOf(body)).toBe('stop')
  })

  it.each([
    "I can't stop snacking at night",
    'I want to quit smoking',
    'cancel my 3pm meeting',
    'Stop by the gym after work?',
    'How do I unsubscribe?',
    "Don't call me before 9am, I'm at the gym",
    "I don't want calls before 8",
    "no more calls this week, I'm on vacation",
    "My kids won't leave me alone so I skipped my run",
    'I want to stop texting my ex',
    'stop calling myself lazy',
    "I'm opting out of dessert tonight",
    'I need to unsubscribe from my gym',
    'I gave you the wrong number, new one is 555 123 4567',
  ])('%j may mean it: one question back, nothing changed', (body) => {
    expect(optOutOf(body)).toBe('unclear')
  })

  it.each([
    'Had a great run today',
    'The end of the week was good',
    'I will end the day with a walk',
    'end it all',
    'Please call me later',
    'Can you text me tomorrow?',
    'You never call me on time',
    'No more excuses this week!',
    "I don't want to skip my run",
    'Remove the sugar from my diet',
    '',
    '   ',
    '💪',
  ])('%j is not an opt-out', (body) => {
    expect(optOutOf(body)).toBeNull()
  })
})

describe('words about suicide or self-harm', () => {
  it.each([
    'I want to end it all',
    'end it all',
    'I think about killing myself',
    "I'm going to kill myself",
    'I feel suicidal',
    'Thinking about suicide again',
    'I want to die',
    "I don't want to live anymore",
    'I dont want to be alive',
    'Sometimes I hurt myself',
    'I have been cutting myself again',
    'Suicide is on my mind',
    "I've been self-harming",
    'There is no reason to live',
    'Everyone would be better off if I was… better off dead',
    'I want to take my own life',
    'I KILL MYSELF TRYING',
  ])('%j is', (body) => {
    expect(isCrisisMessage(body)).toBe(true)
  })

  it.each([
    "I'm dying to try that recipe",
    'This workout is killing me',
    'I killed it at the gym today',
    'My phone died',
    'Let’s end the call early tomorrow',
    'I want to end my streak of skipping runs',
    'I hurt my knee',
    'Did suicide sprints at practice',
    'I hurt myself at the gym yesterday',
    'I need to cut myself some slack',
    'STOP',
    '',
    '🙂',
  ])('%j is not', (body) => {
    expect(isCrisisMessage(body)).toBe(false)
  })

  it('is answered in at most two text segments', () => {
    expect(segmentsOf(CRISIS_REPLY)).toBeLessThanOrEqual(2)
  })
})

describe('bodies', () => {
  it('swap look-alike punctuation for GSM-7 and count segments as Twilio does', () => {
    expect(toGsmFriendly('“Run” — 5 km… it’s done')).toBe('"Run" - 5 km... it\'s done')
    expect(isGsm7('Plain text, é and ñ')).toBe(true)
    expect(isGsm7('With 💪')).toBe(false)
    expect(segmentsOf('x'.repeat(160))).toBe(1)
    expect(segmentsOf('x'.repeat(161))).toBe(2)
    expect(segmentsOf('x'.repeat(306))).toBe(2)
    expect(segmentsOf('x'.repeat(307))).toBe(3)
    expect(segmentsOf('{'.repeat(80))).toBe(1)
    expect(segmentsOf('{'.repeat(81))).toBe(2)
    expect(segmentsOf('💪'.repeat(35))).toBe(1)
    expect(segmentsOf('💪'.repeat(36))).toBe(2)
  })

  it('keep a recap within two segments: the summary gives way first, the link stays whole', () => {
    const link = 'https://coach.example.com/calls/6f1c1f7e-52a4-4f4b-9a51-0c9b6c1d2f3e'
    const long = recapContent({ summary: 'We talked about your running plan. '.repeat(20), commitments: ['Run 3 km on Wednesday'], link })
    expect(long).toContain('You committed to: Run 3 km on Wednesday.')
    expect(long.endsWith(`Details: ${link}`)).toBe(true)
    expect(long).toContain('...')
    expect(segmentsOf(finalBody(long, true))).toBeLessThanOrEqual(2)
    const many = recapContent({ summary: 'Short.', commitments: Array.from({ length: 12 }, (_, i) => `Commitment number ${i + 1} with some words`), link })
    expect(segmentsOf(finalBody(many, true))).toBeLessThanOrEqual(2)
    expect(many.endsWith(`Details: ${link}`)).toBe(true)
    expect(recapContent({ summary: null, commitments: [], link })).toBe(`Call recap. Details: ${link}`)
  })

  it('say when the next try is', () => {
    const link = 'https://x/calls/schedule'
    expect(missedCallContent({ slotLabel: 'daily check-in', next: { kind: 'retry', localTime: '13:40' }, link })).toContain('We will call again at 1:40 PM.')
    expect(missedCallContent({ slotLabel: 'evening check-in', next: { kind: 'next', localTime: '07:00', day: 'Friday' }, link })).toContain('Your next call is on Friday at 7:00 AM.')
    expect(missedCallContent({ slotLabel: 'daily check-in', next: { kind: 'none' }, link })).toContain(link)
  })

  it("tell a member their coach wrote: the coach's first name and the link, in one segment with the footer (GSM-7)", () => {
    const link = 'https://coach.example.com/messages'
    expect(coachMessageContent({ coachName: 'Dana Lee', count: 1, link })).toBe(`Your coach Dana sent you a message. Read and reply: ${link}`)
    const many = coachMessageContent({ coachName: 'Zoë O’Neil-Smith', count: 3, link })
    expect(many).toBe(`Your coach Zoë sent you 3 messages. Read and reply: ${link}`)
    expect(segmentsOf(finalBody(coachMessageContent({ coachName: 'Dana Lee', count: 12, link }), true))).toBe(1)
    // A name outside GSM-7 makes it UCS-2: still within the two segments every text keeps to.
    expect(segmentsOf(finalBody(many, true))).toBe(2)
    const unnamed = coachMessageContent({ coachName: 'Ë'.repeat(100), count: 50, link })
    expect(unnamed).toBe(`Your coach sent you 50 messages. Read and reply: ${link}`)
    expect(segmentsOf(finalBody(unnamed, true))).toBe(1)
  })
})
