/**
 * Elite's human coach (docs/decisions/078): a coach's profile as members see it, the assignment of
 * each Elite member to a coach, and the coach's workspace (their members, what the coach may read of
 * each, and private notes). The shapes both sides read.
 */
import { z } from 'zod'
import { CommitmentsResponseSchema } from './commitments'
import { CoachingCallSchema, NextCallResponseSchema } from './calls'
import { GoalRecordSchema } from './goals'
import { SupportTicketSummarySchema } from './support'
import { WeeklyReportSummarySchema } from './reports'
import { text } from './text'

export const COACH_BIO_MAX = 600
const COACH_NOTE_MAX = 4_000
/** A member with no completed call for this many days shows as quiet in the workspace. */
export const QUIET_AFTER_DAYS = 5
/** How many members a coach takes when an admin has not said. */
export const DEFAULT_COACH_CAPACITY = 25
export const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/

/** Whether the runtime knows the IANA zone. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** The coach's working week: ISO weekdays (1 Monday … 7 Sunday), and the day's hours in their own zone. */
const WorkingHoursShape = {
  timeZone: text().min(1).max(64).refine(isTimeZone, 'must be a time zone such as America/New_York'),
  workingDays: z.array(z.number().int().min(1).max(7)).min(1, 'Choose at least one working day.').max(7),
  startTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM'),
  endTime: text().regex(HH_MM, 'Use a 24-hour time HH:MM'),
}

/** The coach edits their own profile in the workspace. */
export const UpdateCoachProfileBodySchema = z
  .object({
    bio: text().trim().max(COACH_BIO_MAX, `A bio must be at most ${COACH_BIO_MAX} characters.`),
    ...WorkingHoursShape,
    replyWithinHours: z.number().int().min(1).max(72),
  })
  .refine((body) => body.endTime > body.startTime, { path: ['endTime'], message: 'The day must end after it starts.' })
  .refine((body) => new Set(body.workingDays).size === body.workingDays.length, { path: ['workingDays'], message: 'Each day once.' })
export type UpdateCoachProfileBody = z.infer<typeof UpdateCoachProfileBodySchema>

/** A coach's profile: what their members see, and what the coach edits. */
export const CoachProfileSchema = z.object({
  coachId: text(),
  fullName: text(),
  bio: text(),
  timeZone: text(),
  workingDays: z.array(z.number().int()),
  startTime: text(),
  endTime: text(),
  replyWithinHours: z.number().int(),
  /** "Dana usually replies within 4 business hours." */
  replyPromise: text(),
  /** "Monday to Friday, 9:00 to 17:00 (America/New_York)." */
  hoursText: text(),
  /** The coach's photo, `/api/coaches/<id>/photo?v=<version>` (docs/decisions/080); null when they have none (their initials show). */
  photoUrl: text().nullable(),
})
export type CoachProfileWithPhoto = z.infer<typeof CoachProfileSchema>
/** A profile as the coach service builds it: the routes add its `photoUrl` (the coach-photos service). */
export type CoachProfile = Omit<CoachProfileWithPhoto, 'photoUrl'>

/** GET /api/coach: an Elite member's coach, or that one is being matched; no coach on other plans. */
export const MyCoachResponseSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('assigned'), coach: CoachProfileSchema, since: text() }),
  z.object({ status: z.literal('matching') }),
  z.object({ status: z.literal('not-elite') }),
])
/** GET /api/coach as the coach service answers it: the coach's profile without its `photoUrl`, which the route adds. */
export type MyCoachResponse =
  | Exclude<z.infer<typeof MyCoachResponseSchema>, { status: 'assigned' }>
  | { status: 'assigned'; coach: CoachProfile; since: string }

// ---- The coach's photo (docs/decisions/080) ----

/** The most a coach may upload; the server keeps only its own small re-encoding of it. */
export const COACH_PHOTO_MAX_BYTES = 5 * 1024 * 1024
/** The types a photo may be sent as (the server checks what the bytes are, not only this). */
export const COACH_PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const

/** One of the coach's members in the workspace's list. */
export const CoachMemberSummarySchema = z.object({
  memberId: text(),
  fullName: text(),
  assignedAt: text(),
  /** The mean of the life areas' scores, rounded (null before the goal intake). */
  overallScore: z.number().int().nullable(),
  lastCompletedCallAt: text().nullable(),
  /** No completed call for QUIET_AFTER_DAYS days (or none since they were assigned that long ago). */
  quiet: z.boolean(),
  /** Messages from the member the coach has not read. */
  unread: z.number().int(),
  /** A message of theirs in the last 7 days spoke of suicide or self-harm, not yet read by the coach. */
  urgent: z.boolean(),
  /** New to Elite (a coach for under 7 days) with no onboarding session held yet (docs/decisions/082). */
  awaitingOnboarding: z.boolean(),
})
export type CoachMemberSummary = z.infer<typeof CoachMemberSummarySchema>

export const CoachMembersResponseSchema = z.object({ members: z.array(CoachMemberSummarySchema) })

export const CoachNoteSchema = z.object({ id: text(), body: text(), createdAt: text(), updatedAt: text() })
export type CoachNote = z.infer<typeof CoachNoteSchema>

/** A member as their coach reads them: goals and scores, the last calls, commitments, reports, the next call, and the coach's private notes. */
export const CoachMemberDetailSchema = z.object({
  member: CoachMemberSummarySchema.extend({ timeZone: text().nullable() }),
  goals: z.array(GoalRecordSchema),
  /** The last calls, each with the mood and energy its report gave (1 to 10; null before a report). */
  calls: z.array(CoachingCallSchema.extend({ mood: z.number().int().nullable(), energy: z.number().int().nullable() })),
  commitments: CommitmentsResponseSchema,
  reports: z.array(WeeklyReportSummarySchema),
  nextCall: NextCallResponseSchema,
  /** The member's support requests (topic, status, last activity; not their messages). */
  supportRequests: z.array(SupportTicketSummarySchema),
  notes: z.array(CoachNoteSchema),
})
export type CoachMemberDetail = z.infer<typeof CoachMemberDetailSchema>

export const CoachMemberParamsSchema = z.object({ memberId: text() })
export const CoachNoteParamsSchema = z.object({ memberId: text(), noteId: text() })
export const CoachNoteBodySchema = z.object({
  body: text()
    .trim()
    .min(1, 'Write the note.')
    .max(COACH_NOTE_MAX, `A note must be at most ${COACH_NOTE_MAX.toLocaleString('en-US')} characters.`),
})
export const CoachNoteResponseSchema = z.object({ note: CoachNoteSchema })

// ---- Admins: coaches' capacity and assignments ----

const CoachCapacitySchema = z.object({
  coachId: text(),
  fullName: text(),
  members: z.number().int(),
  maxMembers: z.number().int(),
})
export const CoachesResponseSchema = z.object({
  coaches: z.array(CoachCapacitySchema),
  /** Elite members with no coach (every coach full, or none yet). */
  unassigned: z.number().int(),
})
export const UpdateCapacityBodySchema = z.object({ maxMembers: z.number().int().min(0).max(500) })
export const CoachParamsSchema = z.object({ coachId: text() })
export const AssignCoachBodySchema = z.object({ memberEmail: text().trim().min(3).max(254), coachId: text() })
export const AssignCoachResponseSchema = z.object({ memberId: text(), coachId: text() })

const firstNameOf = (fullName: string) => fullName.trim().split(/\s+/)[0] ?? fullName

/** "Dana usually replies within 4 business hours." */
export const replyPromiseOf = (fullName: string, hours: number) => `${firstNameOf(fullName)} usually replies within ${hours === 1 ? '1 business hour' : `${hours} business hours`}.`

/** "Monday to Friday, 09:00 to 17:00 (America/New_York)." */
export function hoursTextOf(days: readonly number[], start: string, end: string, zone: string): string {
  const sorted = [...days].sort((a, b) => a - b)
  const contiguous = sorted.every((day, index) => index === 0 || day === sorted[index - 1]! + 1)
  const names = sorted.map((day) => WEEKDAY_NAMES[day - 1]!)
  const which = sorted.length > 2 && contiguous ? `${names[0]} to ${names[names.length - 1]}` : names.join(', ')
  return `${which}, ${start} to ${end} (${zone}).`
}

// ---- Direct coach access: the message thread (docs/decisions/079) ----

export const COACH_MESSAGE_MAX = 4_000
/** Messages an Elite member can send their coach in a day (UTC): far above a conversation, a cap on a flood. */
export const COACH_MESSAGES_PER_DAY = 50
/** A notice of unread messages goes out after this long unread, and at most once per this long. */
export const MESSAGE_NOTICE_AFTER_MS = 2 * 60 * 1000
export const MESSAGE_NOTICE_EVERY_MS = 15 * 60 * 1000

export const CoachMessageSchema = z.object({
  id: text(),
  /** Who wrote it. */
  from: z.enum(['member', 'coach']),
  body: text(),
  at: text(),
  /** When the other side read it (read receipts); null while unread. */
  readAt: text().nullable(),
})
export type CoachMessage = z.infer<typeof CoachMessageSchema>

export const CoachMessageBodySchema = z.object({
  body: text()
    .trim()
    .min(1, 'Write a message.')
    .max(COACH_MESSAGE_MAX, `A message must be at most ${COACH_MESSAGE_MAX.toLocaleString('en-US')} characters.`),
})

/** The member's thread with their coach (oldest first, the last 200). */
export const CoachThreadResponseSchema = z.object({
  coach: z.object({ fullName: text(), replyPromise: text(), hoursText: text() }),
  messages: z.array(CoachMessageSchema),
})
export type CoachThreadResponse = z.infer<typeof CoachThreadResponseSchema>

export const SendCoachMessageResponseSchema = z.object({
  message: CoachMessageSchema,
  /** Words about suicide or self-harm: where help is, at once (the coach may not be there now). */
  crisisResources: text().nullable(),
})

/** The coach's side of one member's thread. */
export const MemberThreadResponseSchema = z.object({ messages: z.array(CoachMessageSchema) })
export const MemberMessageResponseSchema = z.object({ message: CoachMessageSchema })

/** What the live stream carries: a new message in a thread, or the other side having read it. */
export const CoachThreadEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('coach-message'), memberId: text(), message: CoachMessageSchema }),
  z.object({ type: z.literal('coach-messages-read'), memberId: text(), by: z.enum(['member', 'coach']), at: text() }),
])
export type CoachThreadEvent = z.infer<typeof CoachThreadEventSchema>
