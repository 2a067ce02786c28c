import { FALLBACK_REPLY_DELAY_MS } from '#common/chat'
import { CRISIS_RESOURCES, isCrisisMessage } from '#common/texts'
import type { LifeArea } from '#common/domain'
import type { AreaGoal, CoachContext } from './coach-context'
import type { Assistant, AssistantReply, AssistantTurn } from './assistant'

/**
 * The local fallback coach, for when no assistant is configured, made useful: it answers from the user's own goals. Each reply greets the user by name,
 * refers to the area in play (the one the message is about, else one of the lowest-scored areas)
 * and to the stated 90-day goal, asks exactly one coaching question, and says plainly that the
 * full AI coach is not configured. Wording, focus and question change from turn to turn. Words
 * about suicide or self-harm get no coaching: where help is.
 */

const AREA_WORDS: Record<LifeArea, string[]> = {
  faith: ['faith', 'god', 'pray', 'church', 'spiritual', 'meditat', 'scripture', 'bible', 'worship', 'purpose'],
  family: ['family', 'kid', 'child', 'son', 'daughter', 'wife', 'husband', 'marriage', 'parent', 'mom', 'dad', 'home'],
  fitness: ['fitness', 'gym', 'workout', 'exercise', 'run', 'weight', 'health', 'sleep', 'diet', 'eat', 'walk', 'energy', 'tired'],
  finance: ['money', 'financ', 'budget', 'debt', 'saving', 'save', 'invest', 'income', 'spend', 'bill', 'loan'],
  friends: ['friend', 'social', 'lonely', 'community', 'neighbo'],
  fun: ['fun', 'hobby', 'hobbies', 'travel', 'vacation', 'relax', 'play', 'outdoor', 'rest'],
  service: ['job', 'career', 'boss', 'manager', 'cowork', 'colleague', 'promotion', 'volunteer', 'service', 'raise', 'client'],
  personal_development: ['learn', 'read', 'book', 'course', 'skill', 'grow', 'habit', 'disciplin', 'focus', 'procrastinat', 'confiden'],
}

const QUESTIONS: Record<LifeArea | 'general', string[]> = {
  faith: [
    'What is one small practice, like five quiet minutes in the morning, that you could keep every day this week?',
    'When did you last feel really connected to your faith, and what were you doing then?',
    'Who could you ask to walk alongside you in this part of your life?',
  ],
  family: [
    'What is one thing you could do with your family in the next two days that they would remember?',
    'Which conversation at home have you been putting off, and what would make it easier to start?',
    'What would the people at home say they need most from you right now?',
  ],
  fitness: [
    'What is one workout you could put in your calendar for tomorrow, and at what time?',
    'What usually gets in the way of moving your body, and how could you make it easier this week?',
    'How many hours of sleep did you get last night, and what would help you get one more?',
  ],
  finance: [
    'What is one expense you could cut or pause this week?',
    'If you set aside a fixed amount every payday, what amount would feel doable right now?',
    'Which bill or debt worries you most, and what is the very next step on it?',
  ],
  friends: [
    'Which friend could you message today just to check in?',
    'What plan could you make this week to see someone in person?',
    'Who in your life gives you energy, and how could you see more of them?',
  ],
  fun: [
    'What is one thing you enjoy that you could block an hour for this weekend?',
    'When did you last lose track of time doing something you love, and what was it?',
    'What would a proper day off look like for you this month?',
  ],
  service: [
    'What is one skill that would make the biggest difference in your work this quarter?',
    'Who at work could give you honest feedback on where to grow next?',
    'What could you deliver this week that would make your manager or clients notice?',
  ],
  personal_development: [
    'What is one habit you want to practise every day for the next two weeks?',
    'What have you been meaning to learn, and what would the first 20 minutes of it look like?',
    'What is the one distraction you could remove to protect your best hour of the day?',
  ],
  general: [
    'What would make the next 24 hours a win for you?',
    'What is one small step you could take today toward what matters most to you?',
    'What is getting in your way most right now?',
  ],
}

const FOLLOW_UP_OPENINGS = [
  (name: string) => `Thanks for sharing that, ${name}.`,
  (name: string) => `I hear you, ${name}.`,
  (name: string) => `Good to keep going, ${name}.`,
  (name: string) => `Let's build on that, ${name}.`,
]

const STUCK_WORDS = /\b(stuck|hard|difficult|struggl|can't|cannot|cant|fail|behind|overwhelm)/i

/** A quote of the user's own words that cannot add a second question mark. */
function quote(value: string, max = 140): string {
  const clean = value.replace(/\s+/g, ' ').replace(/\?/g, '').replace(/[.!,;:\s]+$/, '').trim()
  const chars = Array.from(clean)
  return `"${chars.length > max ? `${chars.slice(0, max).join('').trimEnd()}…` : clean}"`
}

function timeOfDayGreeting(now: Date, timeZone: string): string {
  let hour = now.getUTCHours()
  try {
    hour = Number(new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23', timeZone }).format(now))
  } catch {
    // An unknown time zone: UTC is good enough for a greeting.
  }
  if (hour >= 5 && hour < 12) return 'Good morning'
  if (hour >= 12 && hour < 18) return 'Good afternoon'
  return 'Good evening'
}

/** The life area a message is about: the one whose word appears first. */
export function areaMentioned(input: string): LifeArea | null {
  let best: { area: LifeArea; index: number } | null = null
  for (const [area, words] of Object.entries(AREA_WORDS) as Array<[LifeArea, string[]]>) {
    const match = new RegExp(`\\b(${words.join('|')})`, 'i').exec(input)
    if (match && (best === null || match.index < best.index)) best = { area, index: match.index }
  }
  return best?.area ?? null
}

const scoreText = (area: AreaGoal) => (area.score === null ? 'not rated yet' : `${area.score}/10`)
const lower = (area: AreaGoal) => area.title.toLowerCase()

function listAreas(areas: AreaGoal[]): string {
  const items = areas.map((area) => `${lower(area)} (${scoreText(area)})`)
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/**
 * The fallback coach's reply for one turn. `turn` is 1 for the first user message of the
 * conversation, 2 for the second, and so on. Pure: the same inputs give the same reply.
 */
export function composeFallbackReply(context: CoachContext, input: string, turn: number): string {
  const n = Math.max(1, Math.floor(turn))
  const name = context.firstName
  // Words about suicide or self-harm: no coaching, where help is (docs/decisions/058).
  if (isCrisisMessage(input)) return `${name}, ${CRISIS_RESOURCES.charAt(0).toLowerCase()}${CRISIS_RESOURCES.slice(1)} I am an AI coach and cannot help in a crisis; the people there can, right now.`
  const sentences: string[] = []
  sentences.push(n === 1 ? `${timeOfDayGreeting(context.now, context.timezone)}, ${name}!` : FOLLOW_UP_OPENINGS[(n - 2) % FOLLOW_UP_OPENINGS.length]!(name))

  const mentioned = areaMentioned(input)
  const mentionedGoal = mentioned ? context.areas.find((area) => area.area === mentioned) : undefined
  const lowest = context.lowestAreas
  const focus = mentionedGoal ?? (lowest.length > 0 ? lowest[(n - 1) % lowest.length] : undefined)
  const hasGoals = context.areas.length > 0 || context.goal90Days !== null

  if (mentionedGoal) {
    sentences.push(`You brought up ${lower(mentionedGoal)}, which you rated ${scoreText(mentionedGoal)}.`)
    if (lowest.length > 0 && !lowest.some((area) => area.area === mentionedGoal.area)) {
      sentences.push(`Your lowest-rated areas are still ${listAreas(lowest)}, so keep an eye on those too.`)
    }
  } else if (lowest.length > 0 && n === 1) {
    sentences.push(`Looking at your goals, your lowest-rated areas right now are ${listAreas(lowest)}.`)
  } else if (focus) {
    const option = focus.focus.length > 0 ? focus.focus[(n - 1) % focus.focus.length] : undefined
    sentences.push(
      `Let's stay with ${lower(focus)}, one of your lowest-rated areas at ${scoreText(focus)}` +
        (option ? `, where you want to ${quote(option.charAt(0).toLowerCase() + option.slice(1))}.` : '.'),
    )
  }

  if (context.goal90Days) {
    const goal = quote(context.goal90Days)
    const variants = [
      `You said your #1 goal for the next 90 days is ${goal}.`,
      `Keep your 90-day goal in view: ${goal}.`,
      `Every small step here counts toward your 90-day goal, ${goal}.`,
    ]
    sentences.push(variants[(n - 1) % variants.length]!)
  }
  if (context.obstacles && STUCK_WORDS.test(input)) {
    sentences.push(`You named ${quote(context.obstacles)} as an obstacle, so let's plan around it.`)
  }
  if (!hasGoals) {
    sentences.push('You have not set your goals yet; finishing goal setting (Edit Goals on your dashboard) lets me tailor this to you.')
  }

  const bank = QUESTIONS[focus?.area ?? mentioned ?? 'general']
  sentences.push(bank[(n - 1) % bank.length]!)

  sentences.push(
    n === 1
      ? "A note: the full AI coach is not configured on this server, so you're talking with the built-in coach, which works from your saved goals."
      : '(The full AI coach is not configured, so this is the built-in coach.)',
  )
  return sentences.join(' ')
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** The fallback coach as an assistant: it answers after the spec's 1.5 s. */
export function createFallbackAssistant(options: { delayMs?: () => number } = {}): Assistant {
  return {
    kind: 'fallback',
    async reply(turn: AssistantTurn, onDelta?: (text: string) => void): Promise<AssistantReply> {
      await wait(options.delayMs?.() ?? FALLBACK_REPLY_DELAY_MS, turn.signal)
      const text = composeFallbackReply(turn.context, turn.input, turn.turn)
      onDelta?.(text)
      return { text, chatId: null }
    },
  }
}
