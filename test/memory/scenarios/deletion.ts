import type { Scenario } from '../run'

/** What the person deletes never comes back, even when its source is processed again. */
export const deletion: Scenario[] = [
  {
    name: 'deleted-in-chat-that-goes-on',
    kind: 'deletion',
    about: 'A fact from a chat is deleted; the same chat goes on and its extraction says it again',
    sessions: [
      {
        channel: 'chat',
        source: 'conversation-1',
        at: '2026-02-14T20:00:00Z',
        transcript: ['Them: Honestly things with my partner are rocky, we might separate.', 'Them: Anyway, I want to focus on sleep this month.'],
        output: {
          summary: 'They want to focus on sleep this month.',
          factsLearned: [
            { statement: 'Might separate from their partner', subject: 'family', stated: true },
            { statement: 'Wants to focus on sleep this month', subject: 'personal_development', stated: true },
          ],
        },
        after: [{ forget: 'Might separate from their partner' }],
        expect: { current: ['Wants to focus on sleep this month'], deleted: ['Might separate from their partner'] },
      },
      {
        channel: 'chat',
        source: 'conversation-1',
        at: '2026-02-14T21:30:00Z',
        transcript: ['Them: Back again. Like I said, things at home are rocky with my partner. What time should I stop screens?'],
        output: {
          summary: 'They asked when to stop screens before bed.',
          factsLearned: [
            { statement: 'Might separate from their partner', subject: 'family', stated: true },
            { statement: 'Stops screens at 9:30 pm', subject: 'personal_development', stated: true },
          ],
        },
        expect: { current: ['Wants to focus on sleep this month', 'Stops screens at 9:30 pm'], deleted: ['Might separate from their partner'] },
      },
      {
        channel: 'call',
        at: '2026-02-15T13:00:00Z',
        before: [{ reprocess: 0 }],
        transcript: ['Coach: Did the 9:30 screens cutoff work?', 'Them: Mostly!'],
        output: { summary: 'The screens cutoff mostly worked.', factsLearned: [] },
        expect: { query: 'partner separate home', current: ['Stops screens at 9:30 pm'], deleted: ['Might separate from their partner'] },
      },
    ],
  },
  {
    name: 'deleted-then-call-reprocessed',
    kind: 'deletion',
    about: 'A call’s fact is deleted; the call is processed again with a new key; the call’s other facts stay',
    sessions: [
      {
        channel: 'call',
        at: '2026-03-03T13:00:00Z',
        transcript: ['Them: I’m 30 thousand in student loans and I owe my brother 500.', 'Them: I want to start a side business baking.'],
        output: {
          summary: 'They went over debts and a business idea.',
          factsLearned: [
            { statement: 'Owes their brother $500', subject: 'finance', stated: true },
            { statement: 'Has $30,000 in student loans', subject: 'finance', stated: true },
            { statement: 'Wants to start a side business selling baked goods', subject: 'work', stated: true },
          ],
        },
        after: [{ forget: 'Owes their brother $500' }],
        expect: { current: ['Has $30,000 in student loans', 'Wants to start a side business selling baked goods'], deleted: ['Owes their brother $500'] },
      },
      {
        channel: 'chat',
        at: '2026-03-04T19:00:00Z',
        before: [{ reprocess: 0 }],
        transcript: ['Them: How do I price cupcakes?'],
        output: { summary: 'They asked about pricing baked goods.', factsLearned: [] },
        expect: { query: 'money brother owe', current: ['Has $30,000 in student loans', 'Wants to start a side business selling baked goods'], deleted: ['Owes their brother $500'] },
      },
      {
        channel: 'text',
        at: '2026-03-06T17:00:00Z',
        before: [{ reprocess: 0 }, { retry: 0 }],
        transcript: ['Them: sold 24 cupcakes at the market!'],
        output: { summary: 'They sold cupcakes at the market.', factsLearned: [{ statement: 'Sells cupcakes at the Saturday farmers market', subject: 'work', stated: true }] },
        expect: { current: ['Sells cupcakes at the Saturday farmers market', 'Has $30,000 in student loans'], deleted: ['Owes their brother $500'] },
      },
    ],
  },
  {
    name: 'delete-everything-then-reprocess',
    kind: 'deletion',
    about: 'The person deletes everything; every source is processed again; nothing comes back, and new conversations are remembered',
    sessions: [
      {
        channel: 'call',
        at: '2026-04-01T13:00:00Z',
        transcript: ['Them: I’m a teacher at Lincoln Middle School.'],
        output: { summary: 'They talked about work.', factsLearned: [{ statement: 'Teaches at Lincoln Middle School', subject: 'work', stated: true }] },
      },
      {
        channel: 'chat',
        at: '2026-04-02T19:00:00Z',
        transcript: ['Them: My mom lives with us since her surgery.'],
        output: { summary: 'They talked about home.', factsLearned: [{ statement: 'Their mother lives with them since her surgery', subject: 'family', stated: true }] },
        after: [{ forgetAll: true }],
        expect: { deleted: ['Teaches at Lincoln Middle School', 'Their mother lives with them since her surgery'] },
      },
      {
        channel: 'voice',
        at: '2026-04-03T03:00:00Z',
        before: [{ reprocess: 0 }, { reprocess: 1 }],
        transcript: ['Them: I started journaling every night.'],
        output: { summary: 'They started journaling.', factsLearned: [{ statement: 'Journals every night before bed', subject: 'personal_development', stated: true }] },
        expect: { current: ['Journals every night before bed'], deleted: ['Teaches at Lincoln Middle School', 'Their mother lives with them since her surgery'] },
      },
      {
        channel: 'call',
        at: '2026-04-04T13:00:00Z',
        before: [{ reprocess: 0 }, { reprocess: 1 }, { retry: 1 }],
        transcript: ['Coach: How is journaling going?'],
        output: { summary: 'Journaling is going well.', factsLearned: [] },
        expect: { current: ['Journals every night before bed'], deleted: ['Teaches at Lincoln Middle School', 'Their mother lives with them since her surgery'] },
      },
    ],
  },
  {
    name: 'delete-changed-fact-and-history',
    kind: 'deletion',
    about: 'Deleting a fact that replaced another deletes the versions before it: neither comes back from its source',
    sessions: [
      {
        channel: 'chat',
        at: '2026-05-01T19:00:00Z',
        transcript: ['Them: I weigh 210 right now.'],
        output: { summary: 'They shared their weight.', factsLearned: [{ statement: 'Weighs 210 pounds', subject: 'health', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-06-01T13:00:00Z',
        transcript: ['Them: Down to 198 this morning!'],
        output: { summary: 'They reported progress on weight.', factsChanged: [{ previous: 'Weighs 210 pounds', statement: 'Weighs 198 pounds', subject: 'health', stated: true }] },
        after: [{ forget: 'Weighs 198 pounds' }],
        expect: { deleted: ['Weighs 198 pounds', 'Weighs 210 pounds'] },
      },
      {
        channel: 'text',
        at: '2026-06-02T15:00:00Z',
        before: [{ reprocess: 0 }, { reprocess: 1 }],
        transcript: ['Them: please don’t bring up my weight anymore'],
        output: { summary: 'They asked the coach not to bring up their weight.', factsLearned: [{ statement: 'Does not want their weight brought up', subject: 'preferences', stated: true }] },
        expect: { current: ['Does not want their weight brought up'], deleted: ['Weighs 198 pounds', 'Weighs 210 pounds'] },
      },
    ],
  },
  {
    name: 'deleted-fact-said-in-two-sources',
    kind: 'deletion',
    about: 'A fact told in a chat and again on a call is deleted; the call is processed again',
    sessions: [
      {
        channel: 'chat',
        at: '2026-07-10T19:00:00Z',
        transcript: ['Them: I’m on antidepressants since January, it’s been helping.'],
        output: { summary: 'They talked about how they have been feeling lately.', factsLearned: [{ statement: 'Has been taking antidepressants since January', subject: 'health', stated: true }] },
      },
      {
        channel: 'call',
        at: '2026-07-11T13:00:00Z',
        transcript: ['Them: Like I said, the antidepressants since January help. Also I started swimming.'],
        output: {
          summary: 'They said they feel steadier and started swimming.',
          factsLearned: [
            { statement: 'Has been taking antidepressants since January', subject: 'health', stated: true },
            { statement: 'Swims laps at the YMCA twice a week', subject: 'fitness', stated: true },
          ],
        },
        after: [{ forget: 'Has been taking antidepressants since January' }],
        expect: { current: ['Swims laps at the YMCA twice a week'], deleted: ['Has been taking antidepressants since January'] },
      },
      {
        channel: 'voice',
        at: '2026-07-12T03:00:00Z',
        before: [{ reprocess: 1 }],
        transcript: ['Them: Swim was great today.'],
        output: { summary: 'A good swim today.', factsLearned: [] },
        expect: { current: ['Swims laps at the YMCA twice a week'], deleted: ['Has been taking antidepressants since January'] },
      },
      {
        channel: 'call',
        at: '2026-07-13T13:00:00Z',
        before: [{ reprocess: 0 }, { reprocess: 1 }],
        transcript: ['Coach: How was the week?'],
        output: { summary: 'A steady week.', factsLearned: [] },
        expect: { query: 'medication', current: ['Swims laps at the YMCA twice a week'], deleted: ['Has been taking antidepressants since January'] },
      },
    ],
  },
  {
    name: 'deleted-correction',
    kind: 'deletion',
    about: 'The person corrects a fact, then deletes the correction: the original does not come back from its call',
    sessions: [
      {
        channel: 'call',
        at: '2026-08-03T13:00:00Z',
        transcript: ['Them: My ex and I share custody, the kids are with me weekdays.'],
        output: {
          summary: 'They talked about their week with the kids.',
          factsLearned: [
            { statement: 'Shares custody of the kids with their ex; kids are with them on weekdays', subject: 'family', stated: true },
            { statement: 'Plays pickleball on Saturday mornings', subject: 'fun', stated: true },
          ],
        },
        after: [{ correct: 'Shares custody of the kids with their ex; kids are with them on weekdays', to: 'The kids are with them on weekdays' }],
        expect: { current: ['The kids are with them on weekdays', 'Plays pickleball on Saturday mornings'], stale: ['Shares custody of the kids with their ex'] },
      },
      {
        channel: 'chat',
        at: '2026-08-05T19:00:00Z',
        before: [{ forget: 'The kids are with them on weekdays' }],
        transcript: ['Them: Pickleball tournament this weekend!'],
        output: { summary: 'They have a pickleball tournament.', factsLearned: [{ statement: 'Entered a pickleball tournament on August 8', subject: 'fun', stated: true }] },
        expect: { current: ['Plays pickleball on Saturday mornings', 'Entered a pickleball tournament on August 8'], deleted: ['The kids are with them on weekdays', 'Shares custody of the kids with their ex; kids are with them on weekdays'] },
      },
      {
        channel: 'call',
        at: '2026-08-10T13:00:00Z',
        before: [{ reprocess: 0 }],
        transcript: ['Them: We got third at the tournament!'],
        output: { summary: 'They placed third in the tournament.', factsLearned: [] },
        expect: { query: 'kids custody weekdays', current: ['Plays pickleball on Saturday mornings'], deleted: ['The kids are with them on weekdays', 'Shares custody of the kids with their ex; kids are with them on weekdays'] },
      },
    ],
  },
]
