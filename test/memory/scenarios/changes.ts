import type { Scenario } from '../run'

/** A changed fact replaces the old one; the person's correction does too; a source read twice adds nothing twice. */
export const changes: Scenario[] = [
  {
    name: 'race-moved-to-may',
    kind: 'change',
    about: 'The issue’s example: training for a 10k in April, then the race moved to May',
    sessions: [
      {
        channel: 'call',
        at: '2026-01-12T13:00:00Z',
        transcript: ['Them: I’m training for a 10k in April, the Riverfront one.', 'Coach: Great target. How many runs a week?', 'Them: Three.'],
        output: {
          summary: 'They are training for a spring 10k with three runs a week.',
          factsLearned: [
            { statement: 'Training for the Riverfront 10k in April', subject: 'fitness', stated: true },
            { statement: 'Runs three times a week', subject: 'fitness', stated: true },
          ],
        },
        expect: { current: ['Training for the Riverfront 10k in April', 'Runs three times a week'] },
      },
      {
        channel: 'chat',
        at: '2026-02-20T21:00:00Z',
        transcript: ['Them: They moved the Riverfront race to May 16 because of the bridge work.', 'Coach: More time to build up, then.'],
        output: {
          summary: 'Their race was moved a month later.',
          factsChanged: [{ previous: 'Training for the Riverfront 10k in April', statement: 'The Riverfront 10k moved to May 16', subject: 'fitness', stated: true }],
        },
      },
      {
        channel: 'call',
        at: '2026-02-23T13:00:00Z',
        transcript: ['Coach: With the race on May 16, let’s add a fourth run in March.'],
        output: { summary: 'They planned a fourth weekly run from March.', factsLearned: [] },
        expect: { query: 'when is my race?', current: ['The Riverfront 10k moved to May 16', 'Runs three times a week'], stale: ['Training for the Riverfront 10k in April'] },
      },
    ],
  },
  {
    name: 'moved-city',
    kind: 'change',
    about: 'A move replaces where they live; the old city is not shown again',
    person: { name: 'Lena Varga', timezone: 'America/Denver' },
    sessions: [
      {
        channel: 'chat',
        at: '2026-01-05T02:00:00Z',
        transcript: ['Them: Denver winters are rough for running, honestly.'],
        output: { summary: 'They talked about running in winter.', factsLearned: [{ statement: 'Lives in Denver, Colorado', subject: 'other', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-03-30T14:00:00Z',
        transcript: ['Them: We did it, we moved to Austin last weekend! Boxes everywhere.', 'Coach: Congratulations! What’s the first routine to rebuild?'],
        output: {
          summary: 'They moved to a new city and want to rebuild routines.',
          factsChanged: [{ previous: 'Lives in Denver', statement: 'Moved to Austin, Texas in March 2026', subject: 'other', stated: true }],
          factsLearned: [{ statement: 'Wants to find a running group in the new neighborhood', subject: 'fitness', stated: true }],
        },
        expect: { current: ['Moved to Austin, Texas in March 2026', 'Wants to find a running group in the new neighborhood'], stale: ['Lives in Denver, Colorado'] },
      },
      {
        channel: 'voice',
        at: '2026-04-02T03:00:00Z',
        transcript: ['Them: Found a group that runs along Lady Bird Lake on Thursdays.'],
        output: { summary: 'They found a Thursday running group.', factsLearned: [{ statement: 'Runs with a Lady Bird Lake group on Thursdays', subject: 'fitness', stated: true }] },
        expect: { query: 'where do I live now', current: ['Moved to Austin, Texas in March 2026', 'Runs with a Lady Bird Lake group on Thursdays'], stale: ['Lives in Denver, Colorado'] },
      },
    ],
  },
  {
    name: 'shift-change',
    kind: 'change',
    about: 'Night shifts become day shifts: the call time advice follows the new schedule',
    person: { name: 'Marisol Reyes' },
    sessions: [
      {
        channel: 'call',
        at: '2026-02-01T20:00:00Z',
        transcript: ['Them: I work nights at St. Mary’s, seven to seven, so mornings are my evenings.'],
        output: { summary: 'They explained their night-shift schedule.', factsLearned: [{ statement: 'Works night shifts as a nurse at St. Mary’s, 7 pm to 7 am', subject: 'work', stated: true }] },
      },
      {
        channel: 'text',
        at: '2026-03-01T15:00:00Z',
        transcript: ['Them: Good news, I got moved to days at St. Mary’s starting next week!'],
        output: {
          summary: 'They texted about a schedule change at work.',
          factsChanged: [{ previous: 'Works night shifts as a nurse at St. Mary’s', statement: 'Switched to day shifts as a nurse at St. Mary’s from March 9', subject: 'work', stated: true }],
        },
      },
      {
        channel: 'call',
        at: '2026-03-10T23:00:00Z',
        transcript: ['Coach: How was the first day shift?', 'Them: I was asleep by ten!'],
        output: { summary: 'First day shift went well; they slept early.', factsLearned: [{ statement: 'Goes to bed by 10 pm on work nights', subject: 'health', stated: true }] },
        expect: { query: 'work schedule', current: ['Switched to day shifts as a nurse at St. Mary’s from March 9', 'Goes to bed by 10 pm on work nights'], stale: ['Works night shifts as a nurse at St. Mary’s, 7 pm to 7 am'] },
      },
    ],
  },
  {
    name: 'distance-chain',
    kind: 'change',
    about: 'A fact changed twice: both older versions are stale, only the newest shows',
    sessions: [
      {
        channel: 'call',
        at: '2026-01-03T13:00:00Z',
        transcript: ['Them: My longest run so far is 3 miles.'],
        output: { summary: 'They shared their running baseline.', factsLearned: [{ statement: 'Longest run so far is 3 miles', subject: 'fitness', stated: true }] },
        expect: { current: ['Longest run so far is 3 miles'] },
      },
      {
        channel: 'chat',
        at: '2026-01-24T18:00:00Z',
        transcript: ['Them: Did 5 miles today without stopping!!'],
        output: { summary: 'They ran a new longest distance.', factsChanged: [{ previous: 'Longest run so far is 3 miles', statement: 'Longest run so far is 5 miles', subject: 'fitness', stated: true }] },
        expect: { current: ['Longest run so far is 5 miles'], stale: ['Longest run so far is 3 miles'] },
      },
      {
        channel: 'voice',
        at: '2026-02-21T02:00:00Z',
        transcript: ['Them: Eight miles this morning. Legs are jelly.'],
        output: { summary: 'They ran their longest distance yet.', factsChanged: [{ previous: 'Longest run so far is 5 miles', statement: 'Longest run so far is 8 miles', subject: 'fitness', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-02-22T13:00:00Z',
        transcript: ['Coach: Recovery day today after those eight miles?', 'Them: Yes, just a walk.'],
        output: { summary: 'A recovery day after a long run.', factsLearned: [] },
        expect: { query: 'how far have I run', current: ['Longest run so far is 8 miles'], stale: ['Longest run so far is 3 miles', 'Longest run so far is 5 miles'] },
      },
    ],
  },
  {
    name: 'diet-change-keeps-others',
    kind: 'change',
    about: 'One fact changes; the facts around it from the same session stay current',
    sessions: [
      {
        channel: 'coach_session',
        at: '2026-04-10T16:00:00Z',
        transcript: ['Them: I’ve been vegetarian for six years, and I meal-prep on Sundays.', 'Coach (human): Let’s build the protein plan around that.'],
        output: {
          summary: 'Built a protein plan around their diet and Sunday meal prep.',
          factsLearned: [
            { statement: 'Has been vegetarian for six years', subject: 'fitness', stated: true },
            { statement: 'Meal-preps lunches on Sunday afternoons', subject: 'fitness', stated: true },
            { statement: 'Aims for 100 grams of protein a day', subject: 'fitness', stated: true },
          ],
        },
      },
      {
        channel: 'chat',
        at: '2026-05-02T19:00:00Z',
        transcript: ['Them: Update: I started eating fish again, my doctor suggested it for iron.'],
        output: {
          summary: 'They changed their diet to include fish.',
          factsChanged: [{ previous: 'Has been vegetarian for six years', statement: 'Now eats fish as well as vegetarian meals (pescatarian)', subject: 'fitness', stated: true }],
        },
      },
      {
        channel: 'call',
        at: '2026-05-04T13:00:00Z',
        transcript: ['Coach: How is the new protein plan with fish going?', 'Them: Much easier to hit the number.'],
        output: { summary: 'Protein goal is easier to reach now.', factsLearned: [] },
        expect: {
          query: 'protein and diet',
          current: ['Now eats fish as well as vegetarian meals (pescatarian)', 'Meal-preps lunches on Sunday afternoons', 'Aims for 100 grams of protein a day'],
          stale: ['Has been vegetarian for six years'],
        },
      },
    ],
  },
  {
    name: 'change-across-channels-paraphrased',
    kind: 'change',
    about: 'The model names the old fact in slightly different words; the right one is replaced and a similar one is not',
    sessions: [
      {
        channel: 'chat',
        at: '2026-08-01T01:00:00Z',
        transcript: ['Them: Car payment is 410 a month and I have 14 payments left.', 'Them: Also my credit card balance is about 2,300.'],
        output: {
          summary: 'They went over their debts.',
          factsLearned: [
            { statement: 'Has 14 car payments of $410 left', subject: 'finance', stated: true },
            { statement: 'Credit card balance is about $2,300', subject: 'finance', stated: true },
          ],
        },
      },
      {
        channel: 'call',
        at: '2026-09-02T13:00:00Z',
        transcript: ['Them: I paid the credit card off completely with my bonus!', 'Coach: That’s a milestone. What’s next, the car?'],
        output: {
          summary: 'They paid off their credit card with a bonus.',
          factsChanged: [{ previous: 'Their credit card balance is around $2,300', statement: 'Paid off the credit card in full in September', subject: 'finance', stated: true }],
        },
        expect: { query: 'money', current: ['Paid off the credit card in full in September', 'Has 14 car payments of $410 left'], stale: ['Credit card balance is about $2,300'] },
      },
      {
        channel: 'text',
        at: '2026-10-01T14:00:00Z',
        transcript: ['Them: one less car payment, 13 to go'],
        output: { summary: 'They made another car payment.', factsChanged: [{ previous: 'Has 14 car payments of $410 left', statement: 'Has 13 car payments of $410 left', subject: 'finance', stated: true }] },
        expect: { current: ['Paid off the credit card in full in September', 'Has 13 car payments of $410 left'], stale: ['Has 14 car payments of $410 left', 'Credit card balance is about $2,300'] },
      },
    ],
  },
  {
    name: 'person-corrects-fact',
    kind: 'correction',
    about: 'The person corrects a fact on /memory; the correction replaces it in every channel’s brief',
    sessions: [
      {
        channel: 'call',
        at: '2026-03-02T13:00:00Z',
        transcript: ['Them: My son Leo is turning seven next week.'],
        output: { summary: 'They talked about their son’s birthday.', factsLearned: [{ statement: 'Their son Leo turns 7 next week', subject: 'family', stated: true }] },
        after: [{ correct: 'Their son Leo turns 7 next week', to: 'Their son Leo turns 7 on March 12' }],
        expect: { current: ['Their son Leo turns 7 on March 12'], stale: ['Their son Leo turns 7 next week'] },
      },
      {
        channel: 'chat',
        at: '2026-03-05T20:00:00Z',
        transcript: ['Them: Party ideas for a 7 year old who loves dinosaurs?'],
        output: { summary: 'They asked for dinosaur party ideas.', factsLearned: [{ statement: 'Leo loves dinosaurs', subject: 'family', stated: true }] },
        expect: { query: 'birthday party', current: ['Their son Leo turns 7 on March 12', 'Leo loves dinosaurs'], stale: ['Their son Leo turns 7 next week'] },
      },
      {
        channel: 'call',
        at: '2026-03-06T13:00:00Z',
        before: [{ reprocess: 0 }],
        transcript: ['Coach: How are the party plans?'],
        output: { summary: 'Party planning update.', factsLearned: [] },
        expect: { current: ['Their son Leo turns 7 on March 12', 'Leo loves dinosaurs'], stale: ['Their son Leo turns 7 next week'] },
      },
    ],
  },
  {
    name: 'retried-and-reprocessed-sources',
    kind: 'idempotency',
    about: 'A job retried with the same key and a source processed again add nothing twice and change nothing',
    sessions: [
      {
        channel: 'call',
        at: '2026-05-20T13:00:00Z',
        transcript: ['Them: I joined a climbing gym, going Mondays and Wednesdays.'],
        output: { summary: 'They joined a climbing gym.', factsLearned: [{ statement: 'Climbs at the gym on Mondays and Wednesdays', subject: 'fitness', stated: true }] },
        after: [{ retry: 0 }, { retry: 0 }],
        expect: { current: ['Climbs at the gym on Mondays and Wednesdays'] },
      },
      {
        channel: 'chat',
        at: '2026-06-10T19:00:00Z',
        transcript: ['Them: Switched climbing to Tuesdays and Thursdays, Mondays are too busy.'],
        output: {
          summary: 'They moved their climbing days.',
          factsChanged: [{ previous: 'Climbs at the gym on Mondays and Wednesdays', statement: 'Climbs at the gym on Tuesdays and Thursdays', subject: 'fitness', stated: true }],
        },
        after: [{ reprocess: 0 }],
        expect: { current: ['Climbs at the gym on Tuesdays and Thursdays'], stale: ['Climbs at the gym on Mondays and Wednesdays'] },
      },
      {
        channel: 'voice',
        at: '2026-06-12T03:00:00Z',
        before: [{ retry: 1 }],
        transcript: ['Them: Sent my first V3 tonight!'],
        output: { summary: 'They climbed a harder route.', factsLearned: [{ statement: 'Climbs V3 boulder problems', subject: 'fitness', stated: true }] },
        expect: { current: ['Climbs at the gym on Tuesdays and Thursdays', 'Climbs V3 boulder problems'], stale: ['Climbs at the gym on Mondays and Wednesdays'] },
      },
    ],
  },
]
