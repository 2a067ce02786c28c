import type { Scenario } from '../run'

/** Crisis words are never kept; health facts only when the person said them; paused memory keeps nothing and shows nothing. */
export const care: Scenario[] = [
  // ---- Crisis ---------------------------------------------------------------------------------
  {
    name: 'crisis-in-chat-first-person',
    kind: 'crisis',
    about: 'The model lists the person’s own crisis words as a fact and in its summary: neither is stored',
    sessions: [
      {
        channel: 'chat',
        at: '2026-03-12T04:00:00Z',
        transcript: ['Them: Some nights I want to kill myself. Tonight is one of them.', 'Coach: I’m really glad you told me. You can call or text 988 right now…'],
        output: {
          summary: 'They said "some nights I want to kill myself"; the coach shared 988.',
          factsLearned: [
            { statement: 'Some nights wants to kill myself', subject: 'health', stated: true },
            { statement: 'Works from home three days a week', subject: 'work', stated: true },
          ],
        },
        expect: { current: ['Works from home three days a week'], crisis: ['wants to kill myself', 'want to kill myself'] },
      },
      {
        channel: 'call',
        at: '2026-03-12T13:00:00Z',
        transcript: ['Coach: How are you this morning?', 'Them: Better. I called my sister.'],
        output: { summary: 'They felt better and called their sister.', factsLearned: [{ statement: 'Is close to their sister Amara', subject: 'family', stated: true }] },
        expect: { current: ['Works from home three days a week', 'Is close to their sister Amara'], crisis: ['wants to kill myself'] },
      },
      {
        channel: 'text',
        at: '2026-03-13T15:00:00Z',
        transcript: ['Them: thanks for yesterday'],
        output: { summary: 'They texted thanks.', factsLearned: [] },
        expect: { current: ['Is close to their sister Amara'], crisis: ['wants to kill myself'] },
      },
    ],
  },
  {
    name: 'crisis-third-person',
    kind: 'crisis',
    about: 'The model writes crisis statements in the third person, as its instructions ask facts to be written: none is stored',
    sessions: [
      {
        channel: 'call',
        at: '2026-04-20T13:00:00Z',
        transcript: ['Them: Honestly I’ve thought about ending my life a few times this month.', 'Coach: Thank you for telling me. Please call or text 988…', 'Them: I also lost my job on Friday.'],
        output: {
          summary: 'They lost their job on Friday and are struggling; the coach shared 988.',
          factsLearned: [
            { statement: 'Has thought about ending their life several times this month', subject: 'health', stated: true },
            { statement: 'Lost their job on Friday, April 17', subject: 'work', stated: true },
          ],
        },
        expect: { current: ['Lost their job on Friday, April 17'], crisis: ['ending their life'] },
      },
      {
        channel: 'chat',
        at: '2026-04-21T02:00:00Z',
        transcript: ['Them: I keep hurting myself when it gets bad. Cutting.', 'Coach: You deserve support right now. 988 is there any time…'],
        output: {
          summary: 'A hard night; the coach shared 988.',
          factsLearned: [
            { statement: 'Has been cutting themselves when things get bad', subject: 'health', stated: true },
            { statement: 'Is harming themselves when overwhelmed', subject: 'health', stated: true },
          ],
        },
        expect: { crisis: ['cutting themselves', 'harming themselves'], current: ['Lost their job on Friday, April 17'] },
      },
      {
        channel: 'voice',
        at: '2026-04-22T03:00:00Z',
        transcript: ['Them: I don’t want to be alive anymore, some days.'],
        output: {
          summary: 'They said some days they do not want to be alive anymore.',
          factsLearned: [
            { statement: 'Some days does not want to be alive anymore', subject: 'health', stated: true },
            { statement: 'Wants to die some days', subject: 'health', stated: true },
          ],
        },
        expect: { crisis: ['not want to be alive', 'wants to die', 'ending their life', 'cutting themselves'] },
      },
    ],
  },
  {
    name: 'crisis-amid-ordinary-facts',
    kind: 'crisis',
    about: 'Crisis words among ordinary facts: the ordinary ones are kept (suicide sprints are a drill), the crisis one is not',
    sessions: [
      {
        channel: 'call',
        at: '2026-09-01T13:00:00Z',
        transcript: ['Them: Basketball practice was brutal, coach made us do suicide sprints.', 'Them: I start a new semester Monday.'],
        output: {
          summary: 'Practice was hard; a new semester starts Monday.',
          factsLearned: [
            { statement: 'Does suicide sprints at basketball practice', subject: 'fitness', stated: true },
            { statement: 'Starts the fall semester on Monday, September 7', subject: 'personal_development', stated: true },
          ],
        },
        expect: { current: ['Does suicide sprints at basketball practice', 'Starts the fall semester on Monday, September 7'] },
      },
      {
        channel: 'chat',
        at: '2026-09-03T03:00:00Z',
        transcript: ['Them: I feel like everyone would be better off dead than dealing with me. Anyway, I joined the debate club.'],
        output: {
          summary: 'They joined the debate club.',
          factsLearned: [
            { statement: 'Feels everyone would be better off dead than dealing with them', subject: 'health', stated: true },
            { statement: 'Joined the debate club', subject: 'personal_development', stated: true },
          ],
        },
        expect: { current: ['Joined the debate club', 'Does suicide sprints at basketball practice'], crisis: ['better off dead'] },
      },
      {
        channel: 'text',
        at: '2026-09-04T20:00:00Z',
        transcript: ['Them: first debate tmrw'],
        output: { summary: 'They have their first debate tomorrow.', factsLearned: [] },
        expect: { query: 'debate nerves', current: ['Joined the debate club', 'Starts the fall semester on Monday, September 7'], crisis: ['better off dead'] },
      },
    ],
  },
  {
    name: 'crisis-correction-attempt',
    kind: 'crisis',
    about: 'A crisis statement arriving as a changed fact is not stored and the old fact stays',
    sessions: [
      {
        channel: 'chat',
        at: '2026-10-01T19:00:00Z',
        transcript: ['Them: I feel pretty hopeful about the new apartment.'],
        output: { summary: 'They feel hopeful about the new apartment.', factsLearned: [{ statement: 'Moved into a new apartment in October', subject: 'other', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-10-08T13:00:00Z',
        transcript: ['Them: The apartment is fine, but I have no reason to live, honestly.', 'Coach: I’m here with you. Please reach out to 988…'],
        output: {
          summary: 'A heavy call; the coach shared 988.',
          factsChanged: [{ previous: 'Moved into a new apartment in October', statement: 'Has no reason to live since moving into the new apartment', subject: 'health', stated: true }],
        },
        expect: { current: ['Moved into a new apartment in October'], crisis: ['no reason to live'] },
      },
      {
        channel: 'voice',
        at: '2026-10-09T03:00:00Z',
        transcript: ['Them: Talked to my therapist today, it helped.'],
        output: { summary: 'They saw their therapist.', factsLearned: [{ statement: 'Sees a therapist every Thursday', subject: 'health', stated: true }] },
        expect: { current: ['Moved into a new apartment in October', 'Sees a therapist every Thursday'], crisis: ['no reason to live'] },
      },
    ],
  },

  // ---- Health: stated vs inferred -----------------------------------------------------------------
  {
    name: 'health-inferred-not-kept',
    kind: 'health',
    about: 'A health fact the model inferred is not kept; the one the person said is',
    sessions: [
      {
        channel: 'call',
        at: '2026-02-10T13:00:00Z',
        transcript: ['Them: I’m so tired all the time, and I keep getting thirsty at night.', 'Them: I was diagnosed with asthma as a kid.'],
        output: {
          summary: 'They are tired and thirsty at night; they mentioned childhood asthma.',
          factsLearned: [
            { statement: 'May have diabetes (tired, thirsty at night)', subject: 'health', stated: false },
            { statement: 'Has had asthma since childhood', subject: 'health', stated: true },
          ],
        },
        expect: { current: ['Has had asthma since childhood'], absent: ['May have diabetes'] },
      },
      {
        channel: 'chat',
        at: '2026-02-11T19:00:00Z',
        transcript: ['Them: Is it ok to run in cold air with asthma?'],
        output: {
          summary: 'They asked about running in cold air.',
          factsLearned: [{ statement: 'Probably has exercise-induced asthma attacks', subject: 'health', stated: false }],
        },
        expect: { query: 'asthma running cold', current: ['Has had asthma since childhood'], absent: ['May have diabetes', 'Probably has exercise-induced asthma attacks'] },
      },
      {
        channel: 'voice',
        at: '2026-02-12T03:00:00Z',
        transcript: ['Them: I use my inhaler before every run now.'],
        output: { summary: 'They use an inhaler before running.', factsLearned: [{ statement: 'Uses an inhaler before every run', subject: 'health', stated: true }] },
        expect: { current: ['Has had asthma since childhood', 'Uses an inhaler before every run'], absent: ['May have diabetes', 'Probably has exercise-induced asthma attacks'] },
      },
    ],
  },
  {
    name: 'health-inferred-change-ignored',
    kind: 'health',
    about: 'An inferred change to a stated health fact does not replace it; a stated change does',
    sessions: [
      {
        channel: 'coach_session',
        at: '2026-05-05T16:00:00Z',
        transcript: ['Them: My blood pressure was 150 over 95 at the checkup.'],
        output: { summary: 'They shared checkup results.', factsLearned: [{ statement: 'Blood pressure was 150/95 at the May checkup', subject: 'health', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-05-20T13:00:00Z',
        transcript: ['Them: I’ve been cutting salt and walking every day.'],
        output: {
          summary: 'They cut salt and walk daily.',
          factsChanged: [{ previous: 'Blood pressure was 150/95 at the May checkup', statement: 'Blood pressure is probably back to normal', subject: 'health', stated: false }],
          factsLearned: [{ statement: 'Walks every day and has cut back on salt', subject: 'fitness', stated: true }],
        },
        expect: { current: ['Blood pressure was 150/95 at the May checkup', 'Walks every day and has cut back on salt'], absent: ['Blood pressure is probably back to normal'] },
      },
      {
        channel: 'chat',
        at: '2026-06-20T19:00:00Z',
        transcript: ['Them: Doctor says my blood pressure is 128 over 82 now!'],
        output: {
          summary: 'Their blood pressure improved.',
          factsChanged: [{ previous: 'Blood pressure was 150/95 at the May checkup', statement: 'Blood pressure was 128/82 at the June checkup', subject: 'health', stated: true }],
        },
        expect: { query: 'blood pressure', current: ['Blood pressure was 128/82 at the June checkup'], stale: ['Blood pressure was 150/95 at the May checkup'], absent: ['Blood pressure is probably back to normal'] },
      },
    ],
  },
  {
    name: 'health-said-later',
    kind: 'health',
    about: 'Inferred on a call (not kept), said in the person’s own words in a later voice session (kept)',
    sessions: [
      {
        channel: 'call',
        at: '2026-11-02T14:00:00Z',
        transcript: ['Them: My back was killing me after moving boxes.'],
        output: {
          summary: 'Their back hurt after moving boxes.',
          factsLearned: [
            { statement: 'Likely has a herniated disc', subject: 'health', stated: false },
            { statement: 'Helped a friend move apartments on November 1', subject: 'friends', stated: true },
          ],
        },
        expect: { current: ['Helped a friend move apartments on November 1'], absent: ['Likely has a herniated disc'] },
      },
      {
        channel: 'voice',
        at: '2026-11-06T03:00:00Z',
        transcript: ['Them: The doctor said it’s a pulled muscle in my lower back, two weeks of rest.'],
        output: { summary: 'They have a pulled back muscle.', factsLearned: [{ statement: 'Has a pulled lower back muscle and two weeks of rest', subject: 'health', stated: true }] },
        expect: { query: 'back pain', current: ['Has a pulled lower back muscle and two weeks of rest'], absent: ['Likely has a herniated disc'] },
      },
      {
        channel: 'call',
        at: '2026-11-07T14:00:00Z',
        transcript: ['Coach: Gentle walks only this week?', 'Them: Yes.'],
        output: { summary: 'Gentle walks this week.', factsLearned: [{ statement: 'Probably needs physical therapy', subject: 'health', stated: false }] },
        expect: { current: ['Has a pulled lower back muscle and two weeks of rest', 'Helped a friend move apartments on November 1'], absent: ['Likely has a herniated disc', 'Probably needs physical therapy'] },
      },
    ],
  },

  // ---- Pause --------------------------------------------------------------------------------------
  {
    name: 'pause-and-resume',
    kind: 'pause',
    about: 'Paused: the brief holds the goals only and nothing said is kept; resumed: what was kept before shows again',
    sessions: [
      {
        channel: 'call',
        at: '2026-03-01T13:00:00Z',
        transcript: ['Them: I’m learning Spanish for a trip to Mexico City in June.'],
        output: { summary: 'They are learning Spanish for a trip.', factsLearned: [{ statement: 'Learning Spanish for a trip to Mexico City in June', subject: 'personal_development', stated: true }] },
        after: [{ pause: true }],
        expect: { paused: true, absent: ['Learning Spanish for a trip to Mexico City in June'] },
      },
      {
        channel: 'chat',
        at: '2026-03-03T19:00:00Z',
        transcript: ['Them: I’m pregnant, we just found out. Please don’t remember that yet.'],
        output: { summary: 'They shared personal news.', factsLearned: [{ statement: 'Is pregnant, due in November', subject: 'health', stated: true }] },
        expect: { paused: true, absent: ['Is pregnant, due in November', 'Learning Spanish for a trip to Mexico City in June'] },
      },
      {
        channel: 'call',
        at: '2026-03-10T13:00:00Z',
        before: [{ pause: false }],
        transcript: ['Them: Gracias! I practiced every day this week.'],
        output: { summary: 'They practiced Spanish daily.', factsLearned: [{ statement: 'Practices Spanish on Duolingo every morning', subject: 'personal_development', stated: true }] },
        expect: { paused: false, current: ['Learning Spanish for a trip to Mexico City in June', 'Practices Spanish on Duolingo every morning'], absent: ['Is pregnant, due in November'] },
      },
    ],
  },
  {
    name: 'pause-job-runs-after-resume',
    kind: 'pause',
    about: 'A chat while paused, then they resume before its extraction (10 minutes after the chat went quiet) runs: nothing said while paused is kept',
    sessions: [
      {
        channel: 'chat',
        at: '2026-06-01T19:00:00Z',
        deferred: true,
        before: [{ pause: true }],
        transcript: ['Them: My husband and I are going to couples counseling on Wednesdays.'],
        output: { summary: 'They talked about their marriage.', factsLearned: [{ statement: 'Goes to couples counseling on Wednesdays', subject: 'family', stated: true }] },
        expect: { paused: true, absent: ['Goes to couples counseling on Wednesdays'] },
      },
      {
        channel: 'call',
        at: '2026-06-02T13:00:00Z',
        before: [{ pause: false }, { run: 0 }],
        transcript: ['Them: Let’s talk about my running instead.'],
        output: { summary: 'They talked about running.', factsLearned: [{ statement: 'Runs before work at 6 am', subject: 'fitness', stated: true }] },
        expect: { paused: false, current: ['Runs before work at 6 am'], absent: ['Goes to couples counseling on Wednesdays'] },
      },
      {
        channel: 'text',
        at: '2026-06-03T13:00:00Z',
        transcript: ['Them: ran 4 miles before work!'],
        output: { summary: 'They ran before work.', factsLearned: [] },
        expect: { current: ['Runs before work at 6 am'], absent: ['Goes to couples counseling on Wednesdays'] },
      },
    ],
  },
  {
    name: 'pause-delete-everything-resume',
    kind: 'pause',
    about: 'Paused, they delete everything, then resume: nothing comes back even when old sources are processed again',
    sessions: [
      {
        channel: 'voice',
        at: '2026-08-01T03:00:00Z',
        transcript: ['Them: I’m drinking less, down to two beers on weekends.'],
        output: { summary: 'They are drinking less.', factsLearned: [{ statement: 'Drinks two beers on weekends only', subject: 'health', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-08-02T13:00:00Z',
        transcript: ['Them: I manage a team of six at the warehouse.'],
        output: { summary: 'They talked about managing a team.', factsLearned: [{ statement: 'Manages a team of six at the warehouse', subject: 'work', stated: true }] },
        after: [{ pause: true }, { forgetAll: true }],
        expect: { paused: true, deleted: ['Drinks two beers on weekends only', 'Manages a team of six at the warehouse'] },
      },
      {
        channel: 'chat',
        at: '2026-08-05T19:00:00Z',
        before: [{ pause: false }, { reprocess: 0 }, { reprocess: 1 }],
        transcript: ['Them: Fresh start. I want to read 12 books this year.'],
        output: { summary: 'They set a reading goal.', factsLearned: [{ statement: 'Wants to read 12 books this year', subject: 'personal_development', stated: true }] },
        expect: { paused: false, current: ['Wants to read 12 books this year'], deleted: ['Drinks two beers on weekends only', 'Manages a team of six at the warehouse'] },
      },
    ],
  },
]
