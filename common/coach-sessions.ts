/**
 * Elite's 1-on-1 sessions with their coach (docs/decisions/082): the shapes both sides read, and the
 * rules the member is shown before they book.
 */
import { z } from 'zod'
import { LIFE_AREAS } from './domain'
import { GOAL_TEXT_MAX, NOTES_MAX } from './goals'
import { text } from './text'

export const SESSION_MINUTES = 45
/** A hold keeps a slot for the member while they confirm. */
export const HOLD_MINUTES = 5
/** A session can be moved or cancelled in time (the month's session given back) up to this long before. */
export const CHANGE_CUTOFF_HOURS = 24
const SESSION_SUMMARY_MAX = 4_000
const SESSION_COMMITMENTS_MAX = 5

/** The rule shown before booking, and on each session. */
export const SESSION_RULE = 'One 45-minute session a month. Move or cancel it up to 24 hours before; after that, or if you miss it, it counts as the month\u2019s session. Unused sessions do not carry over.'

export const SESSION_KINDS = ['monthly', 'onboarding'] as const
export type SessionKind = (typeof SESSION_KINDS)[number]
const SESSION_STATUSES = ['booked', 'cancelled', 'completed', 'no_show'] as const

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/
const instant = () => z.iso.datetime({ offset: true })

/** A session as the member sees it. */
export const CoachSessionSchema = z.object({
  id: text(),
  kind: z.enum(SESSION_KINDS),
  status: z.enum(SESSION_STATUSES),
  startsAt: text(),
  endsAt: text(),
  coachName: text(),
  coachTimeZone: text(),
  meeting: z.enum(['phone', 'video']),
  /** The coach's video link, when they meet by video. */
  videoUrl: text().nullable(),
  /** Whether it uses the month's session (a cancel in time gives it back). */
  counts: z.boolean(),
  /** Whether it can still be moved (24 hours or more ahead, and booked). */
  changeable: z.boolean(),
  summary: text().nullable(),
  commitments: z.array(text()),
})
export type CoachSession = z.infer<typeof CoachSessionSchema>

/** GET /api/coach/sessions: the member's sessions, and whether this month's is free to book. */
export const MemberSessionsResponseSchema = z.object({
  coach: z.object({ coachId: text(), fullName: text(), timeZone: text() }),
  memberTimeZone: text(),
  rule: text(),
  /** This month (the member's zone, YYYY-MM) and whether its session is used already. */
  month: z.object({ month: text(), used: z.boolean() }),
  /** Elite's onboarding session: offered within the first 7 days, until booked. */
  onboarding: z.object({ offered: z.boolean(), until: text().nullable() }),
  sessions: z.array(CoachSessionSchema),
})
export type MemberSessionsResponse = z.infer<typeof MemberSessionsResponseSchema>

export const SlotsQuerySchema = z.object({ kind: z.enum(SESSION_KINDS).default('monthly') }).strict()

/** GET /api/coach/sessions/slots: the coach's free slots (instants; the member's page shows them in the member's zone). */
export const SlotsResponseSchema = z.object({
  coachTimeZone: text(),
  memberTimeZone: text(),
  slots: z.array(z.object({ startsAt: text(), endsAt: text() })),
})
export type SlotsResponse = z.infer<typeof SlotsResponseSchema>

/** POST /api/coach/sessions/holds: hold a slot for 5 minutes (to book, or to move `movesSessionId` there). */
export const HoldBodySchema = z
  .object({
    startsAt: instant(),
    kind: z.enum(SESSION_KINDS).default('monthly'),
    movesSessionId: z.uuid().optional(),
  })
  .strict()
export type HoldBody = z.infer<typeof HoldBodySchema>

export const HoldResponseSchema = z.object({ holdId: text(), startsAt: text(), endsAt: text(), expiresAt: text() })
export type HoldResponse = z.infer<typeof HoldResponseSchema>

export const SessionResponseSchema = z.object({ session: CoachSessionSchema })

/** A session in the coach's list: the member, and their number only within the session's window. */
export const CoachSideSessionSchema = CoachSessionSchema.extend({
  memberId: text(),
  memberName: text(),
  memberTimeZone: text(),
  /** The member's proven number, from 15 minutes before the start to the end, when they meet by phone. */
  memberPhone: text().nullable(),
  /** Whether it has started (a no-show and the summary come after). */
  started: z.boolean(),
})
export type CoachSideSession = z.infer<typeof CoachSideSessionSchema>

export const CoachSessionsResponseSchema = z.object({ sessions: z.array(CoachSideSessionSchema) })

const WindowSchema = z
  .object({ weekday: z.number().int().min(1).max(7), startTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM'), endTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM') })
  .strict()
  .refine((window) => window.endTime > window.startTime, { path: ['endTime'], message: 'A window must end after it starts.' })

const ExceptionSchema = z
  .object({
    date: z.iso.date(),
    kind: z.enum(['off', 'extra']),
    startTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM').nullable().default(null),
    endTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM').nullable().default(null),
  })
  .strict()
  .refine((exception) => exception.kind === 'off' || (exception.startTime !== null && exception.endTime !== null && exception.endTime > exception.startTime), {
    path: ['endTime'],
    message: 'Extra hours need a start and a later end.',
  })

/** The coach's hours for sessions (in their profile's zone) and booking rules. */
export const AvailabilitySchema = z
  .object({
    weekly: z.array(WindowSchema).max(28),
    exceptions: z.array(ExceptionSchema).max(100),
    bufferMinutes: z.number().int().min(0).max(120),
    minNoticeHours: z.number().int().min(1).max(168),
    horizonDays: z.number().int().min(7).max(90),
  })
  .strict()
export type Availability = z.infer<typeof AvailabilitySchema>

export const AvailabilityResponseSchema = AvailabilitySchema.extend({ timeZone: text() })

/** How the coach meets the member: a call to the member's proven number, or the coach's video link. */
export const MeetingBodySchema = z
  .object({ meeting: z.enum(['phone', 'video']), videoUrl: z.url({ protocol: /^https$/ }).max(500).nullable().default(null) })
  .strict()
  .refine((body) => body.meeting === 'phone' || body.videoUrl !== null, { path: ['videoUrl'], message: 'A video session needs its https link.' })

/** After the session: what was talked about and the commitments agreed. */
export const SessionSummaryBodySchema = z
  .object({
    summary: text().trim().min(1, 'Write a short summary.').max(SESSION_SUMMARY_MAX),
    commitments: z.array(text().trim().min(1).max(200)).max(SESSION_COMMITMENTS_MAX),
  })
  .strict()

/**
 * White-glove onboarding: the coach adjusts a member's 90-day goal, the obstacles they watch for
 * and their daily call time (what is left out stays as it is). Each change is on the member's
 * account page.
 */
export const AdjustPlanBodySchema = z
  .object({
    goal90Days: text().trim().min(1, 'Write the 90-day goal.').max(GOAL_TEXT_MAX).optional(),
    obstacles: text().trim().max(GOAL_TEXT_MAX).optional(),
    dailyCallTime: text()
      .regex(/^([01]\d|2[0-3]):(00|30)$/, 'Choose a call time on the hour or the half hour')
      .optional(),
    /** A life area's goal, in the notes the goal intake keeps for it. */
    area: z.object({ lifeArea: z.enum(LIFE_AREAS), notes: text().trim().max(NOTES_MAX) }).strict().optional(),
  })
  .strict()
  .refine((body) => body.goal90Days !== undefined || body.obstacles !== undefined || body.dailyCallTime !== undefined || body.area !== undefined, {
    path: ['goal90Days'],
    message: 'Change at least one thing.',
  })
export type AdjustPlanBody = z.infer<typeof AdjustPlanBodySchema>

/** What changed, as the member's account page names it. */
export const AdjustPlanResponseSchema = z.object({ changed: z.array(z.enum(['goal_90_days', 'obstacles', 'daily_call_time', 'area_goal'])) })
