import { sql } from 'drizzle-orm'
import { boolean, check, date, index, pgTable, text, time, timestamp, uuid } from 'drizzle-orm/pg-core'
import { DEFAULT_PARTNER_PROGRAM } from '#common/domain'
import { inList } from './helpers'
import { timestamps, users } from './users'

/** Partner-company programs (spec: NORTHWIND → Northwind Traders; GENERAL is the default). */
export const partnerPrograms = pgTable('partner_programs', {
  code: text().primaryKey(),
  companyName: text().notNull(),
  isActive: boolean().notNull().default(true),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})

export const PAYMENT_STATUSES = ['unpaid', 'paid'] as const

/** One per user: coaching preferences and onboarding state. */
export const profiles = pgTable(
  'profiles',
  {
    id: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text(),
    phoneNumber: text(),
    /** IANA time zone name. */
    timezone: text().notNull().default('America/New_York'),
    /** Local wall-clock time of the daily coaching call, in `timezone`. */
    dailyCallTime: time(),
    /** The evening check-in's local time (Premium and Elite); 19:00 until the person picks one. */
    eveningCallTime: time(),
    /** Calls are paused until this local date (the first day they resume), if set. */
    callsPausedUntil: date({ mode: 'string' }),
    activeGoalsSummary: text(),
    /**
     * The program label from /auth?partner=…; any well-formed label is kept as given (the
     * dashboard shows an unknown one as it is), known ones match partner_programs.code.
     */
    partnerProgram: text().notNull().default(DEFAULT_PARTNER_PROGRAM),
    onboardingCompleted: boolean().notNull().default(false),
    paymentStatus: text({ enum: PAYMENT_STATUSES }).notNull().default('unpaid'),
    smsOptedInAt: timestamp({ withTimezone: true }),
    /** The exact opt-in text the user was shown when they confirmed. */
    smsOptInConsentText: text(),
    ...timestamps,
  },
  (t) => [
    check('profiles_partner_program_format', sql`${t.partnerProgram} ~ '^[A-Za-z0-9_-]{1,64}$'`),
    check('profiles_payment_status_check', inList(t.paymentStatus, PAYMENT_STATUSES)),
    // Lets the daily-call scheduler find everyone with a call time quickly.
    index('profiles_phone_number_idx')
      .on(t.phoneNumber)
      .where(sql`${t.phoneNumber} is not null`),
    index('profiles_daily_call_time_idx')
      .on(t.dailyCallTime)
      .where(sql`${t.dailyCallTime} is not null`),
  ],
)

export type Profile = typeof profiles.$inferSelect
export type PartnerProgram = typeof partnerPrograms.$inferSelect
