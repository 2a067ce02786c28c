import type { Scenario } from '../run'

/** A person with far more facts than a brief holds: it stays within its budget and keeps what the turn is about. */
export const budget: Scenario[] = [
  {
    name: 'many-facts-knee-question',
    kind: 'budget',
    about: 'Hundreds of newer facts; the turn asks about the knee: the knee facts from months ago are in, within budget',
    person: { name: 'Chris Albright' },
    history: { facts: 320, after: 0 },
    sessions: [
      {
        channel: 'chat',
        at: '2026-01-10T19:00:00Z',
        transcript: ['Them: Had knee surgery in December, ACL repair on the right knee.', 'Them: Physio says no running until April.'],
        output: {
          summary: 'They shared their knee surgery and rehab timeline.',
          factsLearned: [
            { statement: 'Had ACL repair surgery on the right knee in December', subject: 'health', stated: true },
            { statement: 'Physiotherapist cleared no running on the knee until April', subject: 'health', stated: true },
          ],
        },
        expect: { query: 'knee surgery', current: ['Had ACL repair surgery on the right knee in December'] },
      },
      {
        channel: 'call',
        at: '2026-06-10T13:00:00Z',
        transcript: ['Them: My knee is aching after the hike, should I worry?'],
        output: { summary: 'Their knee aches after a hike.', factsLearned: [] },
        expect: {
          query: 'My knee is aching after the hike, should I worry?',
          current: ['Had ACL repair surgery on the right knee in December', 'Physiotherapist cleared no running on the knee until April'],
        },
      },
      {
        channel: 'voice',
        at: '2026-06-11T03:00:00Z',
        transcript: ['Them: Iced the knee, feels better.'],
        output: { summary: 'They iced the knee.', factsLearned: [] },
        expect: { query: 'knee surgery running', current: ['Had ACL repair surgery on the right knee in December', 'Physiotherapist cleared no running on the knee until April'] },
      },
    ],
  },
  {
    name: 'many-facts-money-question',
    kind: 'budget',
    about: 'Hundreds of facts; a money question brings the budget facts in, and a changed one shows its new version only',
    person: { name: 'Priya Natarajan' },
    history: { facts: 280, after: 0 },
    sessions: [
      {
        channel: 'coach_session',
        at: '2026-02-02T16:00:00Z',
        transcript: ['Them: We have 6,000 in credit card debt at 24 percent.', 'Them: And the emergency fund is empty.'],
        output: {
          summary: 'Reviewed their debt and savings.',
          factsLearned: [
            { statement: 'Has $6,000 of credit card debt at 24% interest', subject: 'finance', stated: true },
            { statement: 'Emergency savings fund is empty', subject: 'finance', stated: true },
          ],
        },
      },
      {
        channel: 'chat',
        at: '2026-07-01T19:00:00Z',
        transcript: ['Them: I moved the card debt to a 0% balance transfer card!'],
        output: {
          summary: 'They moved their card debt.',
          factsChanged: [{ previous: 'Has $6,000 of credit card debt at 24% interest', statement: 'Moved the $6,000 card debt to a 0% balance transfer card until next July', subject: 'finance', stated: true }],
        },
        expect: {
          query: 'credit card debt interest and emergency savings',
          current: ['Moved the $6,000 card debt to a 0% balance transfer card until next July', 'Emergency savings fund is empty'],
          stale: ['Has $6,000 of credit card debt at 24% interest'],
        },
      },
      {
        channel: 'call',
        at: '2026-07-02T13:00:00Z',
        transcript: ['Coach: Now the emergency fund, how much can go in each month?', 'Them: Maybe 150.'],
        output: {
          summary: 'They planned to build an emergency fund.',
          factsChanged: [{ previous: 'Emergency savings fund is empty', statement: 'Puts $150 a month into an emergency savings fund', subject: 'finance', stated: true }],
        },
        expect: {
          query: 'savings emergency fund money',
          current: ['Puts $150 a month into an emergency savings fund', 'Moved the $6,000 card debt to a 0% balance transfer card until next July'],
          stale: ['Emergency savings fund is empty', 'Has $6,000 of credit card debt at 24% interest'],
        },
      },
    ],
  },
  {
    name: 'long-summaries-many-facts',
    kind: 'budget',
    about: 'Long episode summaries and many facts: the brief is cut to its budget, the newest facts kept',
    person: { name: 'Alexandra Montgomery-Featherstonehaugh' },
    history: { facts: 400 },
    sessions: [
      {
        channel: 'call',
        at: '2026-09-01T13:00:00Z',
        transcript: ['Them: (a long call about the whole month)'],
        output: {
          summary: `A long review of the month. ${'They went through each week in detail, the wins, the misses, what got in the way and what they want to try next. '.repeat(30)}`,
          factsLearned: [{ statement: 'Started a new role as operations manager on September 1', subject: 'work', stated: true }],
        },
        expect: { current: ['Started a new role as operations manager on September 1'] },
      },
      {
        channel: 'chat',
        at: '2026-09-02T19:00:00Z',
        transcript: ['Them: (a long chat)'],
        output: {
          summary: `A long chat about the new role. ${'They listed the meetings, the people, the first projects and what scares them about each. '.repeat(35)}`,
          factsLearned: [{ statement: 'Reports to the COO, Daniel', subject: 'work', stated: true }],
        },
        expect: { current: ['Started a new role as operations manager on September 1', 'Reports to the COO, Daniel'] },
      },
      {
        channel: 'voice',
        at: '2026-09-03T03:00:00Z',
        transcript: ['Them: (a long voice session)'],
        output: {
          summary: `A long wind-down. ${'They talked through the day slowly, one part at a time, and what they are grateful for. '.repeat(40)}`,
          factsLearned: [{ statement: 'Wants a wind-down voice session on work nights', subject: 'preferences', stated: true }],
        },
        expect: {
          query: 'new job operations manager',
          current: ['Started a new role as operations manager on September 1', 'Reports to the COO, Daniel', 'Wants a wind-down voice session on work nights'],
        },
      },
    ],
  },
  {
    name: 'many-facts-no-query',
    kind: 'budget',
    about: 'No words to rank by (a phone call’s variables): the newest facts make the cut within budget; an old replaced one never does',
    history: { facts: 360 },
    sessions: [
      {
        channel: 'call',
        at: '2026-10-01T13:00:00Z',
        transcript: ['Them: I quit smoking on Monday.'],
        output: { summary: 'They quit smoking.', factsLearned: [{ statement: 'Quit smoking on Monday, September 28', subject: 'health', stated: true }] },
      },
      {
        channel: 'text',
        at: '2026-10-05T15:00:00Z',
        transcript: ['Them: one week no cigarettes!!'],
        output: {
          summary: 'A week without smoking.',
          factsChanged: [{ previous: 'Quit smoking on Monday, September 28', statement: 'Has not smoked since September 28 (one week)', subject: 'health', stated: true }],
        },
        expect: { current: ['Has not smoked since September 28 (one week)'], stale: ['Quit smoking on Monday, September 28'] },
      },
      {
        channel: 'chat',
        at: '2026-10-06T19:00:00Z',
        transcript: ['Them: Chewing gum helps with cravings.'],
        output: { summary: 'Gum helps with cravings.', factsLearned: [{ statement: 'Chews gum when a craving hits', subject: 'health', stated: true }] },
        expect: { current: ['Has not smoked since September 28 (one week)', 'Chews gum when a craving hits'], stale: ['Quit smoking on Monday, September 28'] },
      },
      {
        channel: 'call',
        at: '2026-10-07T13:00:00Z',
        transcript: ['Coach: Ten days now?', 'Them: Nine!'],
        output: { summary: 'Nine days smoke-free.', factsLearned: [] },
        expect: { current: ['Has not smoked since September 28 (one week)', 'Chews gum when a craving hits'], stale: ['Quit smoking on Monday, September 28'] },
      },
    ],
  },
]
