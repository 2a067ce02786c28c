/**
 * Training courses: the catalogue, one course with its lessons and the user's
 * progress, enrolling, completing lessons, answering quiz questions (graded here, never in the
 * browser) and remembering the last opened lesson. Every query about a user's data is filtered by
 * the user id the route takes from the session.
 */
import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm'
import {
  progressPercentage,
  parseQuizOptions,
  type CourseDetailResponse,
  type CourseSummary,
  type Enrollment,
  type Lesson,
  type Progress,
  type QuizQuestion,
} from '#common/courses'
import type { Logger } from 'pino'
import { isUuid } from '#common/uuid'
import type { Db, DbExecutor } from '#server/db/client'
import { courseEnrollments, courses, lessonProgress, lessons, quizAttempts, quizzes, type Course } from '#server/db/schema'
import { AppError, forbidden, notFound } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { assertEmailConfirmed, type Billing, type CheckoutUser } from '#server/services/billing'
import { grantEnrollment, startCourseCheckout, type CoursePriceCache, type EnrollmentRow, type EnrollmentSource } from './payments'

const NOT_FOUND_MESSAGE = 'Course not found'
const NOT_ENROLLED_MESSAGE = 'Enroll in this course to take its lessons.'

/** What the API shows of an enrollment. */
function toEnrollment(row: EnrollmentRow): Enrollment {
  return {
    progressPercentage: row.progressPercentage,
    enrolledAt: row.enrolledAt.toISOString(),
    lastAccessedAt: row.lastAccessedAt?.toISOString() ?? null,
    lastLessonId: row.lastLessonId,
    completedAt: row.completedAt?.toISOString() ?? null,
    source: row.source,
  }
}

/** A course by its id (a UUID) or its slug; null when there is none. */
async function findCourse(db: DbExecutor, ref: string): Promise<Course | null> {
  const where = isUuid(ref) ? eq(courses.id, ref.toLowerCase()) : eq(courses.slug, ref)
  const [course] = await db.select().from(courses).where(where).limit(1)
  return course ?? null
}

async function findEnrollment(db: DbExecutor, userId: string, courseId: string): Promise<EnrollmentRow | null> {
  const [row] = await db
    .select()
    .from(courseEnrollments)
    .where(and(eq(courseEnrollments.userId, userId), eq(courseEnrollments.courseId, courseId)))
    .limit(1)
  return row ?? null
}

function toSummary(
  course: Course,
  stats: { lessonCount: number; totalMinutes: number },
  enrollment: EnrollmentRow | null,
): CourseSummary {
  return {
    id: course.id,
    slug: course.slug,
    title: course.title,
    description: course.description,
    thumbnailUrl: course.thumbnailUrl,
    category: course.category,
    isPremium: course.isPremium,
    priceCents: course.isPremium ? course.priceCents : null,
    lessonCount: stats.lessonCount,
    totalMinutes: stats.totalMinutes,
    enrollment: enrollment ? toEnrollment(enrollment) : null,
  }
}

/** The catalogue: active courses by order_index, each with the user's enrollment. */
export async function listCatalogue(db: Db, userId: string): Promise<CourseSummary[]> {
  const stats = db
    .select({
      courseId: lessons.courseId,
      lessonCount: sql<number>`count(*)::int`.as('lesson_count'),
      totalMinutes: sql<number>`coalesce(sum(${lessons.durationMinutes}), 0)::int`.as('total_minutes'),
    })
    .from(lessons)
    .groupBy(lessons.courseId)
    .as('lesson_stats')
  const rows = await db
    .select({ course: courses, enrollment: courseEnrollments, lessonCount: stats.lessonCount, totalMinutes: stats.totalMinutes })
    .from(courses)
    .leftJoin(stats, eq(stats.courseId, courses.id))
    .leftJoin(courseEnrollments, and(eq(courseEnrollments.courseId, courses.id), eq(courseEnrollments.userId, userId)))
    .where(eq(courses.isActive, true))
    .orderBy(asc(courses.orderIndex), asc(courses.title))
  return rows.map((row) =>
    toSummary(row.course, { lessonCount: Number(row.lessonCount ?? 0), totalMinutes: Number(row.totalMinutes ?? 0) }, row.enrollment),
  )
}

/** Lessons completed out of all lessons of a course, for one user. */
async function countProgress(db: DbExecutor, userId: string, courseId: string): Promise<Progress> {
  const [totals] = await db
    .select({
      totalLessons: sql<number>`count(*)::int`,
      completedLessons: sql<number>`count(${lessonProgress.id})::int`,
    })
    .from(lessons)
    .leftJoin(
      lessonProgress,
      and(eq(lessonProgress.lessonId, lessons.id), eq(lessonProgress.userId, userId), eq(lessonProgress.completed, true)),
    )
    .where(eq(lessons.courseId, courseId))
  const totalLessons = Number(totals?.totalLessons ?? 0)
  const completedLessons = Number(totals?.completedLessons ?? 0)
  return { completedLessons, totalLessons, percentage: progressPercentage(completedLessons, totalLessons) }
}

/**
 * One course with its lessons and the user's progress. Before enrolling, only the outline of each
 * lesson is sent; enrolled users get the videos, the text and the questions (never the answers).
 * An inactive course is visible only to those already enrolled in it.
 */
export async function getCourseDetail(db: Db, userId: string, ref: string): Promise<CourseDetailResponse> {
  const course = await findCourse(db, ref)
  if (!course) throw notFound(NOT_FOUND_MESSAGE)
  const enrollment = await findEnrollment(db, userId, course.id)
  if (!course.isActive && !enrollment) throw notFound(NOT_FOUND_MESSAGE)

  const lessonRows = await db.select().from(lessons).where(eq(lessons.courseId, course.id)).orderBy(asc(lessons.orderIndex))
  const lessonIds = lessonRows.map((lesson) => lesson.id)
  const totalMinutes = lessonRows.reduce((sum, lesson) => sum + lesson.durationMinutes, 0)
  const summary = toSummary(course, { lessonCount: lessonRows.length, totalMinutes }, enrollment)

  if (lessonIds.length === 0) {
    return { course: summary, lessons: [], progress: { completedLessons: 0, totalLessons: 0, percentage: 0 } }
  }

  if (!enrollment) {
    const quizCounts = await db
      .select({ lessonId: quizzes.lessonId, n: count() })
      .from(quizzes)
      .where(inArray(quizzes.lessonId, lessonIds))
      .groupBy(quizzes.lessonId)
    const quizCountOf = new Map(quizCounts.map((row) => [row.lessonId, Number(row.n)]))
    const outline: Lesson[] = lessonRows.map((lesson) => ({
      id: lesson.id,
      title: lesson.title,
      orderIndex: lesson.orderIndex,
      durationMinutes: lesson.durationMinutes,
      lessonType: lesson.lessonType,
      hasVideo: Boolean(lesson.videoUrl),
      videoUrl: null,
      videoType: null,
      content: null,
      quizCount: quizCountOf.get(lesson.id) ?? 0,
      quizzes: [],
      completed: false,
      completionDate: null,
    }))
    return { course: summary, lessons: outline, progress: { completedLessons: 0, totalLessons: outline.length, percentage: 0 } }
  }

  const [quizRows, progressRows, attemptRows] = await Promise.all([
    db
      .select({
        id: quizzes.id,
        lessonId: quizzes.lessonId,
        question: quizzes.question,
        options: quizzes.options,
        points: quizzes.points,
        orderIndex: quizzes.orderIndex,
      })
      .from(quizzes)
      .where(inArray(quizzes.lessonId, lessonIds))
      .orderBy(asc(quizzes.lessonId), asc(quizzes.orderIndex), asc(quizzes.createdAt)),
    db
      .select({ lessonId: lessonProgress.lessonId, completed: lessonProgress.completed, completionDate: lessonProgress.completionDate })
      .from(lessonProgress)
      .where(and(eq(lessonProgress.userId, userId), eq(lessonProgress.courseId, course.id))),
    // The user's latest attempt at each question of this course.
    db
      .selectDistinctOn([quizAttempts.quizId], {
        quizId: quizAttempts.quizId,
        answer: quizAttempts.userAnswer,
        isCorrect: quizAttempts.isCorrect,
      })
      .from(quizAttempts)
      .where(and(eq(quizAttempts.userId, userId), eq(quizAttempts.courseId, course.id)))
      .orderBy(quizAttempts.quizId, desc(quizAttempts.createdAt), desc(quizAttempts.id)),
  ])

  const attemptOf = new Map(attemptRows.map((row) => [row.quizId, { answer: row.answer, isCorrect: row.isCorrect }]))
  const progressOf = new Map(progressRows.map((row) => [row.lessonId, row]))
  const quizzesOf = new Map<string, QuizQuestion[]>()
  for (const quiz of quizRows) {
    const list = quizzesOf.get(quiz.lessonId) ?? []
    list.push({
      id: quiz.id,
      question: quiz.question,
      options: parseQuizOptions(quiz.options),
      points: quiz.points,
      orderIndex: quiz.orderIndex,
      lastAttempt: attemptOf.get(quiz.id) ?? null,
    })
    quizzesOf.set(quiz.lessonId, list)
  }

  let completedLessons = 0
  const full: Lesson[] = lessonRows.map((lesson) => {
    const progress = progressOf.get(lesson.id)
    const completed = progress?.completed === true
    if (completed) completedLessons += 1
    const lessonQuizzes = quizzesOf.get(lesson.id) ?? []
    return {
      id: lesson.id,
      title: lesson.title,
      orderIndex: lesson.orderIndex,
      durationMinutes: lesson.durationMinutes,
      lessonType: lesson.lessonType,
      hasVideo: Boolean(lesson.videoUrl),
      videoUrl: lesson.videoUrl,
      videoType: lesson.videoUrl ? (lesson.videoType ?? 'file') : null,
      content: lesson.content,
      quizCount: lessonQuizzes.length,
      quizzes: lessonQuizzes,
      completed,
      completionDate: completed ? (progress?.completionDate?.toISOString() ?? null) : null,
    }
  })
  return {
    course: summary,
    lessons: full,
    progress: { completedLessons, totalLessons: full.length, percentage: progressPercentage(completedLessons, full.length) },
  }
}

type EnrollDeps = {
  db: Db
  clock: Clock
  /** Premium courses are paid through billing's Stripe checkout, or enrolled at once in testing mode. */
  billing: Billing
  appUrl: string
  log: Logger
  /** The course prices looked up in Stripe, per course and amount (owned by the courses service). */
  priceCache: CoursePriceCache
}

type EnrollResult =
  | { outcome: 'enrolled'; source: EnrollmentSource; alreadyEnrolled: boolean; enrollment: Enrollment }
  | { outcome: 'checkout'; clientSecret: string; sessionId: string }

/**
 * Enrolling: a free course at once; a premium course only after payment, i.e. a
 * Stripe Checkout Session whose completion webhook enrolls, or at once in payment testing mode.
 */
export async function enroll(deps: EnrollDeps, user: CheckoutUser, ref: string): Promise<EnrollResult> {
  assertEmailConfirmed(user)
  const course = await findCourse(deps.db, ref)
  if (!course || !course.isActive) throw notFound(NOT_FOUND_MESSAGE)
  const existing = await findEnrollment(deps.db, user.id, course.id)
  if (existing) return { outcome: 'enrolled', source: existing.source, alreadyEnrolled: true, enrollment: toEnrollment(existing) }

  if (course.isPremium) {
    if (deps.billing.mode === 'stripe') {
      const checkout = await startCourseCheckout(deps, user, course)
      return { outcome: 'checkout', ...checkout }
    }
    const { enrollment, created } = await grantEnrollment(deps.db, { userId: user.id, courseId: course.id, source: 'testing', now: deps.clock.now() })
    return { outcome: 'enrolled', source: enrollment.source, alreadyEnrolled: !created, enrollment: toEnrollment(enrollment) }
  }

  const { enrollment, created } = await grantEnrollment(deps.db, { userId: user.id, courseId: course.id, source: 'free', now: deps.clock.now() })
  return { outcome: 'enrolled', source: enrollment.source, alreadyEnrolled: !created, enrollment: toEnrollment(enrollment) }
}

/**
 * The lesson and the user's enrollment in its course, the enrollment row locked for the rest of the
 * transaction (so two requests of the same user for the same course update progress one at a time).
 * 404 for an unknown lesson, 403 when the user is not enrolled in its course.
 */
async function lockLessonAccess(tx: DbExecutor, userId: string, lessonId: string) {
  const [lesson] = await tx
    .select({ id: lessons.id, courseId: lessons.courseId })
    .from(lessons)
    .where(eq(lessons.id, lessonId))
    .limit(1)
  if (!lesson) throw notFound('Lesson not found')
  const [enrollment] = await tx
    .select()
    .from(courseEnrollments)
    .where(and(eq(courseEnrollments.userId, userId), eq(courseEnrollments.courseId, lesson.courseId)))
    .limit(1)
    .for('update')
  if (!enrollment) throw forbidden(NOT_ENROLLED_MESSAGE)
  return { lesson, enrollment }
}

type CompleteLessonResult = {
  lessonId: string
  newlyCompleted: boolean
  progress: Progress
  enrollment: Enrollment
}

/**
 * Marks a lesson complete: an upsert on (user, lesson) that changes nothing the second
 * time, then the course progress (the rounded share of completed lessons) stored on the
 * enrollment with last_accessed_at, and completed_at once it reaches 100.
 */
export async function completeLesson(db: Db, clock: Clock, userId: string, lessonId: string): Promise<CompleteLessonResult> {
  return db.transaction(async (tx) => {
    const { lesson, enrollment } = await lockLessonAccess(tx, userId, lessonId)
    const now = clock.now()
    const changed = await tx
      .insert(lessonProgress)
      .values({ userId, lessonId: lesson.id, courseId: lesson.courseId, completed: true, completionDate: now, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [lessonProgress.userId, lessonProgress.lessonId],
        set: { completed: true, completionDate: now, updatedAt: now },
        setWhere: sql`not ${lessonProgress.completed}`,
      })
      .returning({ id: lessonProgress.id })
    const progress = await countProgress(tx, userId, lesson.courseId)
    const [updated] = await tx
      .update(courseEnrollments)
      .set({
        progressPercentage: progress.percentage,
        lastAccessedAt: now,
        completedAt: progress.percentage === 100 ? (enrollment.completedAt ?? now) : null,
      })
      .where(eq(courseEnrollments.id, enrollment.id))
      .returning()
    return { lessonId: lesson.id, newlyCompleted: changed.length > 0, progress, enrollment: toEnrollment(updated!) }
  })
}

/** Remembers the lesson the user opened, so "Continue Learning" resumes there. */
export async function openLesson(db: Db, clock: Clock, userId: string, lessonId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const { lesson, enrollment } = await lockLessonAccess(tx, userId, lessonId)
    await tx
      .update(courseEnrollments)
      .set({ lastLessonId: lesson.id, lastAccessedAt: clock.now() })
      .where(eq(courseEnrollments.id, enrollment.id))
  })
}

type QuizAnswerResult = { quizId: string; isCorrect: boolean; pointsEarned: number }

/**
 * Grades an answer on the server: the attempt is stored with is_correct and
 * points_earned, and only right or wrong goes back. A question's points are earned once, on the
 * first right answer; later attempts are recorded with 0 points.
 */
export async function answerQuiz(db: Db, clock: Clock, userId: string, quizId: string, answer: string): Promise<QuizAnswerResult> {
  return db.transaction(async (tx) => {
    const [quiz] = await tx
      .select({ id: quizzes.id, lessonId: quizzes.lessonId, options: quizzes.options, correctAnswer: quizzes.correctAnswer, points: quizzes.points })
      .from(quizzes)
      .where(eq(quizzes.id, quizId))
      .limit(1)
    if (!quiz) throw notFound('Question not found')
    const { lesson, enrollment } = await lockLessonAccess(tx, userId, quiz.lessonId)

    const given = answer.trim()
    const options = parseQuizOptions(quiz.options).map((option) => option.trim())
    if (!options.includes(given)) {
      throw new AppError('VALIDATION_FAILED', 'answer: That is not one of the options.', { field: 'answer' })
    }
    const isCorrect = given === quiz.correctAnswer.trim()
    let pointsEarned = 0
    if (isCorrect) {
      const [earlier] = await tx
        .select({ id: quizAttempts.id })
        .from(quizAttempts)
        .where(and(eq(quizAttempts.userId, userId), eq(quizAttempts.quizId, quiz.id), eq(quizAttempts.isCorrect, true)))
        .limit(1)
      pointsEarned = earlier ? 0 : quiz.points
    }
    const now = clock.now()
    await tx.insert(quizAttempts).values({
      userId,
      quizId: quiz.id,
      lessonId: lesson.id,
      courseId: lesson.courseId,
      userAnswer: given,
      isCorrect,
      pointsEarned,
      createdAt: now,
    })
    await tx.update(courseEnrollments).set({ lastAccessedAt: now }).where(eq(courseEnrollments.id, enrollment.id))
    return { quizId: quiz.id, isCorrect, pointsEarned }
  })
}

/**
 * Stores the progress of every enrollment in the given courses again from the lessons they have
 * now (after the seed adds or removes lessons), so the catalogue's stored percentages stay right.
 */
export async function recomputeCourseProgress(db: DbExecutor, courseIds: string[], now: Date): Promise<void> {
  if (courseIds.length === 0) return
  const rows = await db
    .select({ id: courseEnrollments.id, userId: courseEnrollments.userId, courseId: courseEnrollments.courseId, completedAt: courseEnrollments.completedAt })
    .from(courseEnrollments)
    .where(inArray(courseEnrollments.courseId, courseIds))
  for (const row of rows) {
    const progress = await countProgress(db, row.userId, row.courseId)
    await db
      .update(courseEnrollments)
      .set({
        progressPercentage: progress.percentage,
        completedAt: progress.percentage === 100 ? (row.completedAt ?? now) : null,
      })
      .where(eq(courseEnrollments.id, row.id))
  }
}
