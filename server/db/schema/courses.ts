import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core'
import { COURSE_CATEGORIES } from '#common/domain'
import { inList } from './helpers'
import { timestamps, users } from './users'

/** A training course. Prices are whole cents. */
export const courses = pgTable(
  'courses',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Stable key for seeding and for Stripe price lookup keys. */
    slug: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    thumbnailUrl: text(),
    category: text({ enum: COURSE_CATEGORIES }).notNull(),
    isPremium: boolean().notNull().default(false),
    priceCents: integer(),
    isActive: boolean().notNull().default(true),
    orderIndex: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('courses_slug_key').on(t.slug),
    index('courses_active_order_idx').on(t.orderIndex).where(sql`${t.isActive}`),
    check('courses_category_check', inList(t.category, COURSE_CATEGORIES)),
    check('courses_price_nonnegative', sql`${t.priceCents} is null or ${t.priceCents} >= 0`),
    check('courses_premium_has_price', sql`not ${t.isPremium} or ${t.priceCents} is not null`),
  ],
)

export const LESSON_TYPES = ['video', 'text', 'quiz'] as const
export const VIDEO_TYPES = ['youtube', 'file'] as const

export const lessons = pgTable(
  'lessons',
  {
    id: uuid().primaryKey().defaultRandom(),
    courseId: uuid()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    title: text().notNull(),
    orderIndex: integer().notNull(),
    durationMinutes: integer().notNull().default(0),
    lessonType: text({ enum: LESSON_TYPES }).notNull().default('text'),
    videoUrl: text(),
    videoType: text({ enum: VIDEO_TYPES }),
    /** Markdown, rendered sanitised. */
    content: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('lessons_course_order_key').on(t.courseId, t.orderIndex),
    check('lessons_type_check', inList(t.lessonType, LESSON_TYPES)),
    check('lessons_video_type_check', sql`${t.videoType} is null or ${inList(t.videoType, VIDEO_TYPES)}`),
    check('lessons_duration_nonnegative', sql`${t.durationMinutes} >= 0`),
  ],
)

export const ENROLLMENT_SOURCES = ['free', 'testing', 'stripe'] as const

export const courseEnrollments = pgTable(
  'course_enrollments',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: uuid()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    progressPercentage: integer().notNull().default(0),
    enrolledAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastAccessedAt: timestamp({ withTimezone: true }),
    /** The lesson the user last opened, so "Continue Learning" resumes there. */
    lastLessonId: uuid().references((): AnyPgColumn => lessons.id, { onDelete: 'set null' }),
    completedAt: timestamp({ withTimezone: true }),
    source: text({ enum: ENROLLMENT_SOURCES }).notNull().default('free'),
    stripeCheckoutSessionId: text(),
  },
  (t) => [
    uniqueIndex('course_enrollments_user_course_key').on(t.userId, t.courseId),
    index('course_enrollments_course_idx').on(t.courseId),
    check('course_enrollments_progress_range', sql`${t.progressPercentage} between 0 and 100`),
    check('course_enrollments_source_check', inList(t.source, ENROLLMENT_SOURCES)),
  ],
)

export const lessonProgress = pgTable(
  'lesson_progress',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lessonId: uuid()
      .notNull()
      .references(() => lessons.id, { onDelete: 'cascade' }),
    courseId: uuid()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    completed: boolean().notNull().default(false),
    completionDate: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('lesson_progress_user_lesson_key').on(t.userId, t.lessonId),
    index('lesson_progress_user_course_idx').on(t.userId, t.courseId),
    index('lesson_progress_lesson_idx').on(t.lessonId),
  ],
)

export const quizzes = pgTable(
  'quizzes',
  {
    id: uuid().primaryKey().defaultRandom(),
    lessonId: uuid()
      .notNull()
      .references(() => lessons.id, { onDelete: 'cascade' }),
    question: text().notNull(),
    /** A JSON array of option texts (older rows may hold a JSON string of one). */
    options: jsonb().$type<string[] | string>().notNull(),
    correctAnswer: text().notNull(),
    points: integer().notNull().default(1),
    orderIndex: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('quizzes_lesson_order_idx').on(t.lessonId, t.orderIndex),
    check('quizzes_points_positive', sql`${t.points} > 0`),
  ],
)

export const quizAttempts = pgTable(
  'quiz_attempts',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    quizId: uuid()
      .notNull()
      .references(() => quizzes.id, { onDelete: 'cascade' }),
    lessonId: uuid()
      .notNull()
      .references(() => lessons.id, { onDelete: 'cascade' }),
    courseId: uuid()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    userAnswer: text().notNull(),
    isCorrect: boolean().notNull(),
    pointsEarned: integer().notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('quiz_attempts_user_quiz_idx').on(t.userId, t.quizId, t.createdAt),
    index('quiz_attempts_quiz_idx').on(t.quizId),
    index('quiz_attempts_lesson_idx').on(t.lessonId),
    index('quiz_attempts_course_idx').on(t.courseId),
    check('quiz_attempts_points_nonnegative', sql`${t.pointsEarned} >= 0`),
  ],
)

export type Course = typeof courses.$inferSelect
export type Lesson = typeof lessons.$inferSelect
export type Quiz = typeof quizzes.$inferSelect
