/**
 * The starter course catalogue: real lessons written for Momentum Coach. `npm run db:seed` loads it
 * (and the server does on the first start of the embedded database); it is upserted by course slug
 * and by (course, lesson order), so editing a text here and seeding again updates it in place.
 *
 * Videos: YouTube lessons embed through the privacy-enhanced player (youtube-nocookie.com); the
 * other videos are MP4 files on the product's media host. Both are shown next to the lesson text,
 * which always covers the same ground, so a lesson works even where a video cannot load.
 */
import type { CourseCategory } from '#common/domain'

type SeedQuiz = {
  question: string
  /** Three or four options; `correct` must be one of them. */
  options: string[]
  correct: string
  points?: number
}

export type SeedLesson = {
  title: string
  durationMinutes: number
  lessonType: 'video' | 'text' | 'quiz'
  video?: { type: 'youtube' | 'file'; url: string }
  /** Markdown. */
  content: string
  quizzes?: SeedQuiz[]
}

export type SeedCourse = {
  slug: string
  title: string
  description: string
  thumbnailUrl: string
  category: CourseCategory
  /** Whole cents, one-time; set for premium courses only. */
  priceCents?: number
  isActive?: boolean
  lessons: SeedLesson[]
}

const MEDIA = 'https://media.momentumcoach.app/courses'

export const SEED_COURSES: SeedCourse[] = [
  {
    slug: 'getting-started-with-momentum-coach',
    title: 'Getting Started with Momentum Coach',
    description:
      'A short tour of everything you signed up for: setting your goals, what happens on your daily coaching call, reading your dashboard and using the assistant between calls.',
    thumbnailUrl: '/courses/getting-started.svg',
    category: 'product_training',
    lessons: [
      {
        title: 'How Momentum Coach Works',
        durationMinutes: 6,
        lessonType: 'video',
        video: { type: 'youtube', url: 'https://www.youtube.com/watch?v=Qm7Lr2dVx9E' },
        content: `Momentum Coach pairs you with an AI coach that calls you **every day at the time you choose**. The idea is simple: big goals are reached through small, steady steps, and a short daily conversation is one of the most reliable ways to keep taking them.

## The four parts you will use

1. **Your goals.** You rate eight life areas (faith, family, fitness, finance, friends, fun, service and personal development), describe your work and career, and write down where you want to be in 90 days, 12 months and 5 years.
2. **The daily call.** Your coach checks in, helps you pick one thing to move forward today, and asks you to commit to it out loud.
3. **The dashboard.** Your scores, the areas that need attention this week and your recent calls, all on one page.
4. **The assistant.** Between calls you can type or talk to the same coach, and your conversations are saved so you can pick them up later.

## What makes it work

Coaching works when it is *consistent* and *specific*. Keep your call time realistic, answer honestly when your coach asks how yesterday went, and update your goals whenever your life changes. You can edit them at any time from the dashboard with **Edit Goals**.`,
      },
      {
        title: 'Setting Up Your Goals',
        durationMinutes: 8,
        lessonType: 'text',
        content: `The goal intake takes about ten minutes and shapes every call you receive afterwards, so it is worth doing carefully.

## Life areas (steps 1 to 8)

For each area you will:

- **Select your focus areas**: pick the options that matter to you right now. You can choose several, or none if an area is not a priority this season.
- **Rate your satisfaction from 1 to 10.** Be honest rather than generous: a 4 tells your coach where to help, a polite 7 hides it.
- **Add notes** in your own words. "I want to run a 5K with my daughter in the spring" is far more useful than "get fit".

## Work and career (step 9)

Choose your company if it is listed (partner companies get programme-specific coaching), your industry and, optionally, your role.

## Your specific goals (step 10)

Write your **#1 goal** for three horizons:

| Horizon | Good example |
| --- | --- |
| 90 days | Pay off the remaining $1,800 on my credit card |
| 12 months | Build an emergency fund covering three months of expenses |
| 5 years | Save a 20% deposit for our first home |

Then name your **obstacles**. This is the most skipped field and one of the most valuable: your coach uses it to help you plan around the things that usually stop you.

Finally, choose your **call time and timezone**. Pick a time you can protect every day, such as your commute or right after your morning coffee.

> Tip: you can come back and change anything with **Edit Goals** on the dashboard. Your answers are loaded back into the form.`,
      },
      {
        title: 'Your Daily Coaching Call',
        durationMinutes: 7,
        lessonType: 'video',
        video: { type: 'file', url: `${MEDIA}/getting-started/daily-coaching-call.mp4` },
        content: `Your coach calls at the time you chose. A typical call follows the same simple rhythm.

### 1. Check in
How did yesterday's commitment go? There is no judgement either way: a missed step is information, not failure.

### 2. Choose one focus
Your coach suggests an area, usually one of the lowest-rated on your dashboard or the one tied to your 90-day goal, and helps you pick **one concrete action** for today.

### 3. Commit out loud
Saying "I will walk for 20 minutes after lunch" to someone makes you noticeably more likely to do it than only thinking it.

## Getting the most from your calls

- **Take the call somewhere quiet**, even if it is only a few minutes.
- **Be specific.** "Exercise more" is hard to act on; "two laps of the park before dinner" is easy.
- **Keep it small.** A step you will certainly take beats an ambitious one you will skip.
- **Change your call time** from Edit Goals if the current one keeps clashing with your day.

Completed calls appear under *Recent Coaching Calls* on your dashboard with their date, length and the areas you discussed.`,
      },
      {
        title: 'Reading Your Dashboard',
        durationMinutes: 5,
        lessonType: 'text',
        content: `The dashboard is your weekly mirror. Here is what each part tells you.

## The four numbers

- **Overall Score**: the average of your satisfaction scores, out of 10.
- **Days Active**: the days on which you signed in, saved your goals or completed a call.
- **Calls Completed**: your recent coaching calls.
- **Life Areas**: how many goal records you have set up.

## Life Areas Progress

One bar per area with its score out of 10. Look for the *shape*, not only the numbers: a profile with one or two very low bars usually benefits from focused attention there first.

## This Week's Focus

Your three lowest-scored areas, labelled **Priority 1** to **Priority 3**. Your coach leans on these when suggesting daily actions. If every area scores well you will see *Great job! All areas are well balanced.*

## When something does not load

If part of the page cannot load you will see a warning card with **Retry**. Only the failed part is reloaded; everything else stays on screen.

> Re-rate your areas every few weeks with **Edit Goals**. Seeing a 4 become a 6 is one of the best motivators there is.`,
      },
      {
        title: 'Talking with Your Assistant Between Calls',
        durationMinutes: 5,
        lessonType: 'text',
        content: `The assistant is the same coach you hear on your daily call, available whenever you need it.

## Typing or talking

- Type in the box at the bottom and press **Enter** to send (**Shift + Enter** starts a new line).
- Press the microphone to start a **voice conversation** in your browser, and press it again to end the call.
- Use the speaker toggle in the header to mute or enable spoken replies.

## Your conversations

Every conversation is saved automatically. In the sidebar you can:

- **search** past conversations,
- **rename** one (press Enter to save or Escape to cancel),
- **delete** one you no longer need,
- or start fresh with **New Chat**.

## Good uses for the assistant

- Preparing for a difficult conversation at work or at home.
- Breaking a big goal into this week's steps.
- A quick reset when you have had a bad day and want to get back on track.

The assistant knows the goals you set in the intake, so you do not need to explain your situation from scratch each time.`,
      },
      {
        title: 'Quick Check: Getting Started',
        durationMinutes: 4,
        lessonType: 'quiz',
        content: `Four quick questions to check you know your way around. Choose an answer for each; you can try again as often as you like.`,
        quizzes: [
          {
            question: 'How many life areas do you rate during the goal intake?',
            options: ['Five', 'Eight', 'Ten', 'Twelve'],
            correct: 'Eight',
          },
          {
            question: 'Which three time horizons do you set your #1 goal for?',
            options: ['1 week, 1 month and 1 year', '30 days, 6 months and 3 years', '90 days, 12 months and 5 years'],
            correct: '90 days, 12 months and 5 years',
          },
          {
            question: "What does the dashboard's This Week's Focus panel show?",
            options: [
              'Your three highest-scored areas',
              'Your three lowest-scored areas',
              'The areas discussed on your last call',
              'A random area each week',
            ],
            correct: 'Your three lowest-scored areas',
          },
          {
            question: 'Where do you change your daily call time?',
            options: ['Edit Goals on the dashboard', 'By replying to a text message', 'It cannot be changed once set'],
            correct: 'Edit Goals on the dashboard',
          },
        ],
      },
    ],
  },
  {
    slug: 'goal-setting-that-sticks',
    title: 'Goal Setting That Sticks',
    description:
      'Turn vague intentions into goals you actually reach: measurable targets, a line from five years down to this week, plans for the obstacles you already know about, and habits that carry you on the days motivation does not.',
    thumbnailUrl: '/courses/goal-setting.svg',
    category: 'product_training',
    lessons: [
      {
        title: 'Why Most Goals Fade by February',
        durationMinutes: 6,
        lessonType: 'video',
        video: { type: 'youtube', url: 'https://www.youtube.com/watch?v=Hk3vP8sWq2A' },
        content: `Most goals do not fail because people lack willpower. They fail for a handful of predictable reasons, and each one has a fix.

| Why goals fade | What to do instead |
| --- | --- |
| The goal is vague ("get healthier") | Make it measurable ("walk 8,000 steps on 5 days a week") |
| It is too far away to feel urgent | Break it into a 90-day target and a weekly step |
| Obstacles come as a surprise | Name them in advance and plan your response |
| It depends on motivation | Attach the action to an existing routine |
| Nobody notices when you stop | Check in daily, even briefly |

Momentum Coach is built around the last point: your daily call is the "somebody notices". The rest of this course covers the other four.`,
      },
      {
        title: 'Writing Goals You Can Measure',
        durationMinutes: 8,
        lessonType: 'text',
        content: `A useful goal answers two questions: *how will I know I got there?* and *by when?*

## Outcome goals and process goals

- An **outcome goal** describes the result: "Run a 10K in under an hour by June."
- A **process goal** describes what you do: "Run three times a week, one of them a long run."

You need both. The outcome gives direction; the process is what you actually control day to day. On your calls, your coach will mostly talk about the process.

## A simple checklist

Before you save a goal, check that it is:

1. **Specific**: someone else could tell whether you did it.
2. **Measurable**: there is a number or a clear yes/no.
3. **Time-bound**: it has a date.
4. **Yours**: you want it, not just feel you should want it.

## Rewrites

- "Save more money" becomes "Move $200 into savings on the 1st of every month."
- "Be a better parent" becomes "Put my phone away and read with the kids three evenings a week."
- "Grow my career" becomes "Finish the project-management certificate by the end of the quarter."`,
        quizzes: [
          {
            question: 'Which of these is a process goal?',
            options: [
              'Lose 5 kg by the summer',
              'Walk for 30 minutes every weekday lunchtime',
              'Get promoted this year',
            ],
            correct: 'Walk for 30 minutes every weekday lunchtime',
          },
          {
            question: 'Which rewrite of "save more money" is measurable and time-bound?',
            options: [
              'Try to spend less on takeaways',
              'Be more careful with money this year',
              'Move $200 into savings on the 1st of every month',
            ],
            correct: 'Move $200 into savings on the 1st of every month',
          },
        ],
      },
      {
        title: 'From Five Years to This Week',
        durationMinutes: 7,
        lessonType: 'text',
        content: `Long-term goals give meaning; short-term steps give momentum. The trick is to connect them so that this week's action clearly serves the five-year picture.

## Work backwards

1. **Five years**: where do you want to be? Keep it to one or two sentences.
2. **Twelve months**: what must be true by this time next year for the five-year goal to be on track?
3. **Ninety days**: what is the most important milestone toward the twelve-month goal?
4. **This week**: what are two or three actions that move the 90-day milestone forward?

## An example

- *5 years:* run my own bookkeeping practice.
- *12 months:* certified, with three paying clients on the side.
- *90 days:* pass the certification exam.
- *This week:* book the exam date; study for 45 minutes on Monday, Wednesday and Saturday.

## Review the chain regularly

Every few weeks, look at the chain from the top. If this week's actions no longer serve the 90-day goal, change the actions. If the 90-day goal no longer serves the bigger picture, change the goal. Update your intake with **Edit Goals** so your coach is working from the current plan.`,
      },
      {
        title: 'Planning for Obstacles',
        durationMinutes: 6,
        lessonType: 'video',
        video: { type: 'file', url: `${MEDIA}/goal-setting/planning-for-obstacles.mp4` },
        content: `You already know most of the things that will get in your way: a busy week, a late meeting, feeling tired, a family event. Planning for them in advance is one of the most effective goal strategies there is.

## Write "if–then" plans

An *if–then plan* links a predictable situation to a specific response:

- **If** a meeting runs late and I miss my gym slot, **then** I will do a 15-minute workout at home before dinner.
- **If** I feel like ordering takeaway on a weeknight, **then** I will make one of my three 10-minute fallback meals.
- **If** I skip my study session, **then** I will do 20 minutes the next morning before checking email.

## Why it works

The decision is made *before* the moment of temptation or stress, when you are thinking clearly. When the situation comes up, you follow the plan instead of negotiating with yourself.

## Use the obstacles field

The intake asks for your obstacles. Write them as situations ("evenings when the kids are ill") rather than traits ("I am lazy"). Your coach will help you turn each one into an if–then plan.`,
      },
      {
        title: 'Habits: Make the Next Step Obvious',
        durationMinutes: 7,
        lessonType: 'text',
        content: `Motivation rises and falls. Habits keep going when it is low. Four practical techniques:

## 1. Stack it onto something you already do

"After I pour my morning coffee, I will write my three priorities for the day." The existing routine becomes the reminder.

## 2. Make it tiny to start

Scale the habit down until it is almost too easy: one push-up, one page, two minutes of tidying. Once it is automatic, grow it.

## 3. Shape your environment

Put the running shoes by the door, keep the fruit bowl on the counter and the phone charger outside the bedroom. Make the good choice the easy one.

## 4. Never miss twice

Missing a day is normal. Missing two in a row is how habits end. If you slip, make the next day non-negotiable, even in its smallest form.

> Tell your coach which habit you are building. A daily question about it ("did you do your two minutes?") is exactly the kind of gentle accountability that helps it stick.`,
      },
      {
        title: 'Check Your Understanding',
        durationMinutes: 5,
        lessonType: 'quiz',
        content: 'Test what you learned in this course. Choose an answer for each question; you can try again as often as you like.',
        quizzes: [
          {
            question: 'What is an "if–then" plan?',
            options: [
              'A list of everything that could go wrong this year',
              'A pre-decided response to a predictable obstacle',
              'A reward you give yourself after reaching a goal',
            ],
            correct: 'A pre-decided response to a predictable obstacle',
          },
          {
            question: 'When working backwards from a five-year goal, what comes right after the twelve-month goal?',
            options: ['The weekly actions', 'The 90-day milestone', 'The obstacles list', 'The five-year review'],
            correct: 'The 90-day milestone',
          },
          {
            question: 'You missed your new habit yesterday. What does "never miss twice" suggest?',
            options: [
              'Start the habit again next Monday',
              'Double today’s session to make up for it',
              'Do at least the smallest version of it today',
            ],
            correct: 'Do at least the smallest version of it today',
          },
          {
            question: 'How should you describe obstacles in your goal intake?',
            options: [
              'As personality traits, like "I am lazy"',
              'As specific situations, like "evenings when the kids are ill"',
              'You should leave the field empty',
            ],
            correct: 'As specific situations, like "evenings when the kids are ill"',
          },
        ],
      },
    ],
  },
  {
    slug: 'referral-marketing-basics',
    title: 'Sharing Momentum Coach: Referral Marketing Basics',
    description:
      'For partners and members who want to tell others about Momentum Coach: share your story honestly, write posts that invite rather than pitch, ask for referrals comfortably, and stay on the right side of consent and disclosure rules.',
    thumbnailUrl: '/courses/referral-marketing.svg',
    category: 'marketing',
    lessons: [
      {
        title: 'Word of Mouth Starts with Results',
        durationMinutes: 5,
        lessonType: 'video',
        video: { type: 'youtube', url: 'https://www.youtube.com/watch?v=bT9xN4cJr6U' },
        content: `The most persuasive thing you can share is not a feature list. It is what changed for you.

## Before you share anything

Spend a minute answering three questions:

1. **What was going on before?** The specific situation, not a general feeling.
2. **What did you do differently?** Daily calls, a 90-day goal, a habit your coach helped you keep.
3. **What is different now?** Something concrete a friend would recognise.

## Share results, not promises

"I have walked four mornings a week since March" is honest and compelling. "This will change your life" is a promise you cannot make for someone else, and people discount it immediately.

## Who to tell

Start with people who have *told you* they are working on something similar: a colleague studying for a certification, a friend training for a race, a relative trying to get their finances in order. Relevant recommendations are welcomed; generic ones feel like advertising.`,
      },
      {
        title: 'Telling Your Story in 60 Seconds',
        durationMinutes: 7,
        lessonType: 'text',
        content: `A good personal story fits in about a minute, whether spoken over coffee or written in a short post. Use three beats.

## 1. Before

Set the scene in one or two sentences. Be specific and a little vulnerable.

> "Last autumn I had started and abandoned the same online course three times. Evenings just disappeared."

## 2. The turning point

What did you change? Keep the product in the background; the *behaviour* is the hero.

> "I set a 90-day goal to finish it and agreed to a 7:30 call with my coach every morning. Each call I committed to one module-sized step."

## 3. After

A concrete, verifiable result, and how it feels.

> "I finished the course in eleven weeks and used the final project in my performance review. Mostly, I trust myself to follow through again."

## Then invite, lightly

End with an open door, not a hard sell: *"Happy to tell you more if you are working on something similar."*

**Checklist:** specific, true, about you, short, and with no claims about what it will do for the listener.`,
      },
      {
        title: 'Social Posts That Invite, Not Pitch',
        durationMinutes: 6,
        lessonType: 'text',
        content: `Posts that perform well on any network share a few traits: they are personal, useful and easy to respond to.

## Three post formats that work

1. **The milestone.** "Day 60 of my morning walks. Here is what surprised me…" followed by one genuine lesson.
2. **The lesson learned.** "The single change that helped me stop skipping workouts: deciding the night before what I will do if it rains."
3. **The question.** "What is one habit you have kept for a whole year? I am collecting ideas." Questions start conversations, and conversations lead to recommendations.

## Do

- Lead with the story; mention Momentum Coach once, near the end.
- Use your own photos and words.
- Reply to every comment, including the sceptical ones, politely.

## Avoid

- Before-and-after claims about health, weight or income.
- Posting the same message in many groups (it reads as spam and may break group rules).
- Tagging people who have not asked to be included.`,
      },
      {
        title: 'Asking for Referrals Without Being Pushy',
        durationMinutes: 6,
        lessonType: 'video',
        video: { type: 'file', url: `${MEDIA}/referral-marketing/asking-for-referrals.mp4` },
        content: `Most people are happy to help when asked in the right way at the right time.

## When to ask

Right after a moment of genuine appreciation, for example when a friend says "you seem so much more organised lately", is the natural time. Asking in the middle of an unrelated conversation feels transactional.

## How to ask

Make it **specific**, **easy** and **optional**:

> "If you know anyone who has been trying to build a routine and keeps losing steam, I would be glad to tell them how it has worked for me. No pressure at all."

## Follow up once

If someone says they know a person who might be interested, offer to send a short message they can forward. Then leave it. One friendly follow-up is helpful; repeated reminders damage the relationship you are relying on.

## Say thank you

Whether or not the referral signs up, thank the person who made the introduction. Gratitude is what makes people comfortable recommending you again.`,
      },
      {
        title: 'Honest Marketing: Claims, Consent and Disclosure',
        durationMinutes: 7,
        lessonType: 'text',
        content: `Trust is the whole point of word-of-mouth. These rules protect it, and in many places they are also the law. This lesson is general guidance, not legal advice; your partner agreement may add rules of its own.

## Claims

- **Describe your own experience** and make clear that results vary.
- **Do not promise outcomes**: no guaranteed weight loss, income, promotions or health improvements.
- **Do not present coaching as therapy or medical care.** Momentum Coach is a coaching and accountability service.

## Disclosure

If you receive anything for recommending Momentum Coach (a partner fee, a discount or a free month), **say so clearly and close to the recommendation**, for example "I am a Momentum Coach partner" at the start of a post. Hiding it in a list of hashtags is not a clear disclosure.

## Consent

- **Never add people to text or call lists yourself.** Each person must sign up and opt in on their own; Momentum Coach collects that consent at sign-up and on the opt-in screen.
- **Respect opt-outs immediately.** Anyone can reply STOP to end text messages, and you should never try to talk someone out of it.
- **Do not buy or share contact lists.**

## When in doubt

Leave it out. A slightly less exciting post that is fully honest will always serve you better than a claim you have to walk back.`,
      },
      {
        title: 'Quiz: Referral Marketing',
        durationMinutes: 4,
        lessonType: 'quiz',
        content: 'Check your understanding of honest, effective referrals.',
        quizzes: [
          {
            question: 'Which line is the best way to share your experience?',
            options: [
              'This app will change your life, guaranteed.',
              'I have walked four mornings a week since March with my daily coaching calls.',
              'Everyone who signs up loses weight.',
            ],
            correct: 'I have walked four mornings a week since March with my daily coaching calls.',
          },
          {
            question: 'You receive a partner fee for referrals. What should you do when you post about Momentum Coach?',
            options: [
              'Nothing, as long as the post is true',
              'Disclose the relationship clearly, near the recommendation',
              'Mention it only if someone asks',
              'Put #ad at the end of a long list of hashtags',
            ],
            correct: 'Disclose the relationship clearly, near the recommendation',
          },
          {
            question: 'A friend gives you their sister’s phone number. Can you sign her up for coaching texts?',
            options: [
              'Yes, if the friend agrees',
              'Yes, she can always reply STOP later',
              'No, she must sign up and opt in herself',
            ],
            correct: 'No, she must sign up and opt in herself',
          },
          {
            question: 'What are the three beats of a 60-second personal story?',
            options: ['Problem, price, offer', 'Before, turning point, after', 'Features, benefits, call to action'],
            correct: 'Before, turning point, after',
          },
        ],
      },
    ],
  },
  {
    slug: 'leading-a-workplace-coaching-program',
    title: 'Leading a Workplace Coaching Program',
    description:
      'For HR leads and managers bringing Momentum Coach to their company: build the business case, run a focused 90-day pilot, launch it well, protect employee privacy, measure what matters and keep the programme going.',
    thumbnailUrl: '/courses/workplace-program.svg',
    category: 'business',
    priceCents: 4900,
    lessons: [
      {
        title: 'The Business Case for Coaching',
        durationMinutes: 8,
        lessonType: 'video',
        video: { type: 'youtube', url: 'https://www.youtube.com/watch?v=Vd5kR1gZp8M' },
        content: `Executive coaching has long been reserved for a few senior people because it is expensive and hard to scale. Daily AI coaching makes regular, personal accountability available to everyone in a team.

## What leaders usually want from a programme

- **Engagement**: people who feel supported in their own goals tend to bring more energy to shared ones.
- **Retention**: visible investment in people's growth is a reason to stay.
- **Wellbeing**: coaching across life areas (sleep, fitness, finances, relationships) addresses the causes of burnout, not only the symptoms.
- **Skills**: a daily nudge turns training that is bought into training that is finished.

## Make your case specific

Avoid generic statistics. Tie the programme to a problem your organisation already talks about:

> "Completion of our management-training modules is under half. We want to test whether daily coaching calls raise it among the pilot group over 90 days."

A narrow, measurable question is easier to approve, easier to evaluate and far more convincing when you ask to expand.`,
      },
      {
        title: 'Designing Your Pilot',
        durationMinutes: 9,
        lessonType: 'text',
        content: `A good pilot is small enough to run well and long enough to show change. Decide the following before anyone is invited.

## Scope

- **Size:** 20 to 50 people is enough to learn from and small enough to support personally.
- **Length:** 90 days matches the shortest goal horizon in the intake and gives habits time to form.
- **Who:** volunteers from one or two teams. Volunteers engage more, and a pilot is not the time to persuade the sceptical.

## Success measures (write them down now)

| Type | Example |
| --- | --- |
| Participation | Share of invited people who complete the goal intake |
| Engagement | Median Days Active per participant per month |
| Outcome | Change in a pulse-survey question, e.g. "I make steady progress on goals that matter to me" |
| Business | The specific metric from your business case, e.g. training completion |

## Roles

- **Programme lead** (probably you): launch, answer questions, report results.
- **Executive sponsor**: explains why the company is doing this, and takes part if possible.
- **Team champions**: one volunteer per team who shares their own experience.

## Budget and approval

Agree the pilot cost and the decision you will make at the end (stop, extend or expand) before you start, so the results lead somewhere.`,
      },
      {
        title: 'Launching and Inviting Employees',
        durationMinutes: 7,
        lessonType: 'text',
        content: `A calm, clear launch sets the tone for the whole pilot.

## The invitation

Send it from the executive sponsor, not from HR systems. Cover:

1. **Why**: the problem the programme is meant to help with.
2. **What it is**: a daily coaching call at a time each person chooses, plus an app with goals, a dashboard and training.
3. **Privacy**: what the company will and will not see (next lesson).
4. **It is voluntary**: joining or not has no effect on reviews or opportunities.
5. **How to join**: the sign-up link with your company's partner programme code, and the deadline.

## A short template

> Subject: An invitation to try daily coaching
>
> We are running a 90-day pilot of Momentum Coach, a daily coaching call to help you make progress on goals you choose, at work and outside it. It is entirely voluntary, and your goals and conversations stay private to you. Sign up with the link below by Friday if you would like to take part.

## The first two weeks

Hold a 20-minute optional kickoff where a champion walks through the goal intake on screen. Then check participation at day 7 and send one friendly reminder to anyone who signed up but has not completed the intake.`,
      },
      {
        title: 'Privacy and Trust',
        durationMinutes: 6,
        lessonType: 'video',
        video: { type: 'file', url: `${MEDIA}/workplace-program/privacy-and-trust.mp4` },
        content: `Coaching only works if people are honest, and people are only honest when they trust that what they say stays private.

## What stays with the employee

- Their goals, satisfaction scores and notes.
- Everything said on coaching calls and in the assistant.
- Their individual dashboard.

None of this should ever be requested by or shown to managers.

## What a programme lead can reasonably report

- Aggregated participation: how many people joined and completed the intake.
- Aggregated engagement trends, reported only for groups large enough that no individual can be identified (a common rule of thumb is at least ten people).
- Anonymous survey results the employees chose to submit.

## Say it plainly and keep your word

Put the privacy commitment in the invitation, repeat it at the kickoff, and never make exceptions, including for performance concerns. A single breach of trust can end a programme and damage trust well beyond it.`,
      },
      {
        title: 'Measuring Results',
        durationMinutes: 8,
        lessonType: 'text',
        content: `Measure against the success measures you wrote down before launch, and resist adding new ones halfway through to find a positive story.

## Leading indicators (weekly)

- Intake completion among those who signed up.
- Share of participants with at least one completed call that week.
- Median Days Active.

These tell you early whether the programme is being *used*. If they drop, talk to your champions before changing anything.

## Lagging indicators (at day 90)

- The pulse-survey question, compared with the baseline you took before launch.
- Your business metric (for example training completion), compared with a similar group that did not take part.
- Voluntary comments: ask one open question, such as "What, if anything, changed for you?"

## Report honestly

Share what worked, what did not and what you would change. A decision-maker who sees mixed results presented clearly will trust your recommendation to expand far more than one who sees only good news.`,
      },
      {
        title: 'Keeping Momentum After the Pilot',
        durationMinutes: 6,
        lessonType: 'text',
        content: `The end of the pilot is a decision point, not the finish line.

## If you expand

- **Grow in waves**: add a few teams at a time and recruit a champion in each.
- **Reuse your launch kit**: the invitation, kickoff recording and FAQ you refined during the pilot.
- **Keep the same privacy promise**, in the same words.

## Keep it visible

- Share anonymised stories (with permission) in team meetings.
- Offer a short course from this catalogue each quarter as a shared focus, for example *Goal Setting That Sticks* in January.
- Re-run the pulse survey every six months.

## If you pause

Tell participants early, thank them, and explain what they can keep using on their own. Ending well makes a future programme much easier to start.`,
      },
      {
        title: 'Program Leader Assessment',
        durationMinutes: 6,
        lessonType: 'quiz',
        content: 'Five questions on running a workplace coaching programme. Answer each; you can retry any question.',
        quizzes: [
          {
            question: 'What is a sensible size for a first pilot?',
            options: ['The whole company at once', '20 to 50 volunteers', 'Only the executive team', 'Three people'],
            correct: '20 to 50 volunteers',
          },
          {
            question: 'When should you decide how the pilot will be measured?',
            options: ['Before anyone is invited', 'At day 45', 'After the results come in'],
            correct: 'Before anyone is invited',
          },
          {
            question: 'A manager asks to see one employee’s coaching goals because of a performance concern. What do you do?',
            options: [
              'Share them, since performance matters',
              'Share only the satisfaction scores',
              'Decline: individual goals and conversations stay private',
            ],
            correct: 'Decline: individual goals and conversations stay private',
          },
          {
            question: 'Which of these is a leading indicator?',
            options: [
              'Staff retention after a year',
              'Share of participants with a completed call this week',
              'The day-90 pulse survey',
            ],
            correct: 'Share of participants with a completed call this week',
            points: 2,
          },
          {
            question: 'Who should send the pilot invitation?',
            options: ['An automated HR system', 'The executive sponsor', 'Each employee’s direct manager'],
            correct: 'The executive sponsor',
          },
        ],
      },
    ],
  },
]
