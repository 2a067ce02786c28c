import type { Scenario } from '../run'

/** Something said on one channel reaches the next conversation on another. */
export const crossChannel: Scenario[] = [
  {
    name: 'chat-school-reaches-call',
    kind: 'cross-channel',
    about: "A fact stated in a chat is in the brief of the next phone call",
    sessions: [
      {
        channel: 'chat',
        at: '2026-03-06T19:10:00Z',
        transcript: [
          'Them: Big week coming up. My daughter Mia starts kindergarten on Monday and I am a mess about it.',
          'Coach: That is a big step for both of you. What would help the morning go smoothly?',
          'Them: Packing the bag the night before, I think.',
        ],
        output: {
          summary: 'They are nervous about their daughter starting kindergarten and planned to pack her bag the night before.',
          factsLearned: [{ statement: 'Their daughter Mia starts kindergarten on Monday, March 9', subject: 'family', stated: true }],
        },
      },
      {
        channel: 'call',
        at: '2026-03-09T13:30:00Z',
        transcript: ['Coach: Good morning! How did drop-off go?', 'Them: She walked right in. I cried in the car.', 'Coach: That sounds like a proud cry.'],
        output: { summary: 'Drop-off went well; they were emotional but proud.', factsLearned: [] },
        expect: { query: 'How was the first day of school?', current: ['Their daughter Mia starts kindergarten on Monday, March 9'] },
      },
      {
        channel: 'text',
        at: '2026-03-10T15:02:00Z',
        transcript: ['Them: Mia loves her teacher, Ms. Park!'],
        output: { summary: 'They texted that Mia loves her teacher, Ms. Park.', factsLearned: [{ statement: "Mia's kindergarten teacher is Ms. Park", subject: 'family', stated: true }] },
        expect: { current: ['Their daughter Mia starts kindergarten on Monday, March 9', "Mia's kindergarten teacher is Ms. Park"] },
      },
    ],
  },
  {
    name: 'chat-knee-reaches-call',
    kind: 'cross-channel',
    about: 'An injury mentioned in a chat is known on the next call and in the voice session after',
    sessions: [
      {
        channel: 'chat',
        at: '2026-04-02T22:40:00Z',
        transcript: ['Them: Quick one, I hurt my knee at soccer tonight so the run tomorrow is off.', 'Coach: Sorry to hear it. Ice and rest tonight; we can plan something gentle.'],
        output: {
          summary: 'They hurt a knee at soccer and will skip tomorrow’s run.',
          factsLearned: [{ statement: 'Hurt their left knee playing soccer on April 2', subject: 'health', stated: true }],
        },
      },
      {
        channel: 'call',
        at: '2026-04-03T12:30:00Z',
        transcript: ['Coach: How is the knee this morning?', 'Them: Swollen, but I can walk.', 'Coach: Let’s swap the run for upper-body work this week.'],
        output: {
          summary: 'The knee is swollen; they swapped running for upper-body work this week.',
          factsLearned: [{ statement: 'Swapped running for upper-body workouts while the knee heals', subject: 'fitness', stated: true }],
        },
        expect: { query: 'my knee still hurts', current: ['Hurt their left knee playing soccer on April 2', 'Swapped running for upper-body workouts while the knee heals'] },
      },
      {
        channel: 'voice',
        at: '2026-04-05T02:15:00Z',
        transcript: ['Them: Can we do a wind-down? Knee is better, I did push-ups today.', 'Coach: Nice. Breathe in for four…'],
        output: { summary: 'A wind-down session; the knee is improving and they did push-ups.', factsLearned: [] },
        expect: { current: ['Hurt their left knee playing soccer on April 2', 'Swapped running for upper-body workouts while the knee heals'] },
      },
    ],
  },
  {
    name: 'call-marathon-reaches-chat',
    kind: 'cross-channel',
    about: 'What was said on a phone call is in the next chat turn’s brief',
    sessions: [
      {
        channel: 'call',
        at: '2026-05-11T12:00:00Z',
        transcript: ['Them: I signed up! Chicago marathon, October 11.', 'Coach: Huge. What does your week look like now?', 'Them: Four runs, long one on Saturdays.'],
        output: {
          summary: 'They signed up for the Chicago marathon and plan four runs a week.',
          factsLearned: [
            { statement: 'Signed up for the Chicago marathon on October 11', subject: 'fitness', stated: true },
            { statement: 'Does the long run on Saturday mornings', subject: 'fitness', stated: true },
          ],
        },
      },
      {
        channel: 'chat',
        at: '2026-05-12T18:20:00Z',
        transcript: ['Them: What should I eat before a long run?', 'Coach: Something familiar and easy: toast with banana works for many people.'],
        output: { summary: 'They asked about food before long runs.', factsLearned: [] },
        expect: { query: 'What should I eat before a long run?', current: ['Signed up for the Chicago marathon on October 11', 'Does the long run on Saturday mornings'] },
      },
      {
        channel: 'text',
        at: '2026-05-16T14:00:00Z',
        transcript: ['Them: 12 miles done!!'],
        output: { summary: 'They texted that they ran 12 miles.', factsLearned: [] },
        expect: { current: ['Signed up for the Chicago marathon on October 11'] },
      },
    ],
  },
  {
    name: 'text-job-reaches-voice',
    kind: 'cross-channel',
    about: 'A new job told in a text reaches the voice session in the app',
    person: { name: 'Dana Whitfield', timezone: 'America/New_York' },
    sessions: [
      {
        channel: 'text',
        at: '2026-02-02T16:45:00Z',
        transcript: ['Them: Got the job at the Target distribution center! Start Feb 9, second shift.'],
        output: {
          summary: 'They texted that they got a job at a distribution center.',
          factsLearned: [
            { statement: 'Got a job at the Target distribution center starting February 9', subject: 'work', stated: true },
            { statement: 'Will work second shift, 2 pm to 10:30 pm', subject: 'work', stated: true },
          ],
        },
      },
      {
        channel: 'voice',
        at: '2026-02-08T23:00:00Z',
        transcript: ['Them: First day tomorrow and I can’t sleep.', 'Coach: Let’s walk through the first hour of tomorrow together.'],
        output: { summary: 'Nervous the night before a first day at a new job; they rehearsed the first hour.', factsLearned: [] },
        expect: { query: 'first day at the new job tomorrow', current: ['Got a job at the Target distribution center starting February 9', 'Will work second shift, 2 pm to 10:30 pm'] },
      },
      {
        channel: 'call',
        at: '2026-02-10T15:00:00Z',
        transcript: ['Coach: How was day one?', 'Them: Long but good. My lead is named Carla.'],
        output: { summary: 'Day one went well; their lead is Carla.', factsLearned: [{ statement: 'Their shift lead at work is Carla', subject: 'work', stated: true }] },
        expect: { current: ['Got a job at the Target distribution center starting February 9', 'Their shift lead at work is Carla'] },
      },
    ],
  },
  {
    name: 'coach-session-preference-reaches-call',
    kind: 'cross-channel',
    about: 'A coaching preference from a 1-on-1 with the human coach shapes the next call and chat',
    sessions: [
      {
        channel: 'coach_session',
        at: '2026-06-03T17:00:00Z',
        transcript: ['Coach (human): How do you like to be pushed?', 'Them: Be blunt. If I am making excuses, call it out.', 'Coach (human): Noted, and the AI coach will know too.'],
        output: {
          summary: 'Monthly 1-on-1: reviewed goals; they asked for blunt feedback.',
          factsLearned: [
            { statement: 'Wants blunt feedback and to be called out on excuses', subject: 'preferences', stated: true },
            { statement: 'Prefers calls to stay under ten minutes', subject: 'preferences', stated: true },
          ],
        },
      },
      {
        channel: 'call',
        at: '2026-06-04T12:30:00Z',
        transcript: ['Coach: Straight to it: did you do the workout?', 'Them: No, I was tired.', 'Coach: Tired, or avoiding it?'],
        output: { summary: 'They skipped the workout; the coach pushed back on the excuse.', factsLearned: [] },
        expect: { current: ['Wants blunt feedback and to be called out on excuses', 'Prefers calls to stay under ten minutes'] },
      },
      {
        channel: 'chat',
        at: '2026-06-05T20:00:00Z',
        transcript: ['Them: I skipped again. Just tell me straight.'],
        output: { summary: 'They skipped a workout again and asked for straight talk.', factsLearned: [] },
        expect: { query: 'Just tell me straight', current: ['Wants blunt feedback and to be called out on excuses'] },
      },
    ],
  },
  {
    name: 'every-channel-adds-up',
    kind: 'cross-channel',
    about: 'Five channels each add one fact; the brief after the last holds all five',
    person: { name: 'Sam Okafor', timezone: 'America/Los_Angeles' },
    sessions: [
      {
        channel: 'call',
        at: '2026-07-01T15:00:00Z',
        transcript: ['Them: We are saving for a house, aiming for a 20 percent down payment.'],
        output: { summary: 'They talked about saving for a house.', factsLearned: [{ statement: 'Saving for a 20 percent down payment on a house', subject: 'finance', stated: true }] },
      },
      {
        channel: 'chat',
        at: '2026-07-02T03:00:00Z',
        transcript: ['Them: My brother Tunde is getting married in September, I’m best man.'],
        output: { summary: 'Their brother is getting married; they are best man.', factsLearned: [{ statement: 'Is best man at brother Tunde’s wedding in September', subject: 'family', stated: true }] },
      },
      {
        channel: 'voice',
        at: '2026-07-03T04:30:00Z',
        transcript: ['Them: I’ve started going to the Tuesday night choir at church again.'],
        output: { summary: 'A voice check-in; they rejoined the church choir.', factsLearned: [{ statement: 'Sings in the Tuesday night church choir', subject: 'faith', stated: true }] },
      },
      {
        channel: 'text',
        at: '2026-07-04T18:00:00Z',
        transcript: ['Them: Signed up to coach my son’s little league team!'],
        output: { summary: 'They texted about coaching little league.', factsLearned: [{ statement: 'Coaches their son’s little league team', subject: 'service', stated: true }] },
      },
      {
        channel: 'coach_session',
        at: '2026-07-08T16:00:00Z',
        transcript: ['Coach (human): What do you want from next month?', 'Them: Finish the AWS certification by August 30.'],
        output: { summary: 'Monthly review; they set a certification deadline.', factsLearned: [{ statement: 'Aims to finish the AWS certification by August 30', subject: 'personal_development', stated: true }] },
        expect: {
          current: [
            'Saving for a 20 percent down payment on a house',
            'Is best man at brother Tunde’s wedding in September',
            'Sings in the Tuesday night church choir',
            'Coaches their son’s little league team',
            'Aims to finish the AWS certification by August 30',
          ],
        },
      },
    ],
  },
]
