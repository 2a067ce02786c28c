import { z } from 'zod'
import { text } from './text'
import { COURSE_CATEGORIES, type CourseCategory } from './domain'

/**
 * The course catalogue, lessons, quizzes and progress, as the API sends them.
 * No schema here has a field for a quiz's correct answer: grading happens on the server, and the
 * response serializer drops anything a schema does not name.
 */

export const CourseCategorySchema = z.enum(COURSE_CATEGORIES)

/** Badge texts for the spec's three categories (spec 2 §9). */
export const COURSE_CATEGORY_LABELS: Record<CourseCategory, string> = {
  product_training: 'Product Training',
  marketing: 'Marketing',
  business: 'Business',
}

export const LESSON_TYPES = ['video', 'text', 'quiz'] as const
export const VIDEO_TYPES = ['youtube', 'file'] as const
export const ENROLLMENT_SOURCES = ['free', 'testing', 'stripe'] as const

/** A course is addressed by its id (a UUID) or by its slug. */
export const COURSE_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

export const CourseParamsSchema = z.object({
  courseId: text().trim().min(1, 'Course id is required').max(200, 'Course id is too long'),
})
export const LessonParamsSchema = z.object({ lessonId: z.uuid('Lesson id must be a UUID') })
export const QuizParamsSchema = z.object({ quizId: z.uuid('Quiz id must be a UUID') })

export const QUIZ_ANSWER_MAX = 500

export const QuizAnswerBodySchema = z.object({
  answer: text({ error: 'Choose an answer' })
    .trim()
    .min(1, 'Choose an answer')
    .max(QUIZ_ANSWER_MAX, `An answer is at most ${QUIZ_ANSWER_MAX} characters`),
})
export type QuizAnswerBody = z.input<typeof QuizAnswerBodySchema>

/** The user's enrollment in a course, times as ISO strings. */
export const EnrollmentSchema = z.object({
  progressPercentage: z.number().int().min(0).max(100),
  enrolledAt: text(),
  lastAccessedAt: text().nullable(),
  /** The lesson the user last opened, so "Continue Learning" resumes there. */
  lastLessonId: text().nullable(),
  completedAt: text().nullable(),
  source: z.enum(ENROLLMENT_SOURCES),
})
export type Enrollment = z.infer<typeof EnrollmentSchema>

export const CourseSummarySchema = z.object({
  id: text(),
  slug: text(),
  title: text(),
  description: text(),
  thumbnailUrl: text().nullable(),
  category: CourseCategorySchema,
  isPremium: z.boolean(),
  /** Whole cents, one-time; null for free courses. */
  priceCents: z.number().int().nullable(),
  lessonCount: z.number().int(),
  totalMinutes: z.number().int(),
  /** The signed-in user's enrollment, or null. */
  enrollment: EnrollmentSchema.nullable(),
})
export type CourseSummary = z.infer<typeof CourseSummarySchema>

export const CatalogueResponseSchema = z.object({ courses: z.array(CourseSummarySchema) })
export type CatalogueResponse = z.infer<typeof CatalogueResponseSchema>

/** A quiz question without its answer; `lastAttempt` is the user's latest answer and whether it was right. */
export const QuizQuestionSchema = z.object({
  id: text(),
  question: text(),
  options: z.array(text()),
  points: z.number().int(),
  orderIndex: z.number().int(),
  lastAttempt: z.object({ answer: text(), isCorrect: z.boolean() }).nullable(),
})
export type QuizQuestion = z.infer<typeof QuizQuestionSchema>

/**
 * A lesson. Before enrolling only its outline is sent (title, duration, type, whether it has a
 * video and how many questions); the video, the text and the questions come with the enrollment.
 */
export const LessonSchema = z.object({
  id: text(),
  title: text(),
  orderIndex: z.number().int(),
  durationMinutes: z.number().int(),
  lessonType: z.enum(LESSON_TYPES),
  hasVideo: z.boolean(),
  videoUrl: text().nullable(),
  videoType: z.enum(VIDEO_TYPES).nullable(),
  /** Markdown; rendered sanitised. */
  content: text().nullable(),
  quizCount: z.number().int(),
  quizzes: z.array(QuizQuestionSchema),
  completed: z.boolean(),
  completionDate: text().nullable(),
})
export type Lesson = z.infer<typeof LessonSchema>

export const ProgressSchema = z.object({
  completedLessons: z.number().int(),
  totalLessons: z.number().int(),
  percentage: z.number().int().min(0).max(100),
})
export type Progress = z.infer<typeof ProgressSchema>

export const CourseDetailResponseSchema = z.object({
  course: CourseSummarySchema,
  lessons: z.array(LessonSchema),
  progress: ProgressSchema,
})
export type CourseDetailResponse = z.infer<typeof CourseDetailResponseSchema>

/**
 * Enrolling: at once for a free course (and for a premium one in payment testing mode), or an
 * embedded Stripe Checkout Session to pay for a premium course (the webhook then enrolls).
 */
export const EnrollResponseSchema = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('enrolled'),
    source: z.enum(ENROLLMENT_SOURCES),
    alreadyEnrolled: z.boolean(),
    enrollment: EnrollmentSchema,
  }),
  z.object({
    outcome: z.literal('checkout'),
    clientSecret: text(),
    sessionId: text(),
  }),
])
export type EnrollResponse = z.infer<typeof EnrollResponseSchema>

export const CompleteLessonResponseSchema = z.object({
  lessonId: text(),
  completed: z.literal(true),
  /** False when the lesson was already complete (nothing changed). */
  newlyCompleted: z.boolean(),
  progress: ProgressSchema,
  enrollment: EnrollmentSchema,
})
export type CompleteLessonResponse = z.infer<typeof CompleteLessonResponseSchema>

export const QuizAnswerResponseSchema = z.object({
  quizId: text(),
  isCorrect: z.boolean(),
  pointsEarned: z.number().int(),
})
export type QuizAnswerResponse = z.infer<typeof QuizAnswerResponseSchema>

// ---- plain helpers shared by the server and the web ----

/** Course progress: the rounded share of completed lessons, 0 for a course without lessons. */
export function progressPercentage(completed: number, total: number): number {
  if (total <= 0) return 0
  // completed * 100 first: an exact half (e.g. 1 of 8 = 12.5) stays exact and rounds up.
  return Math.min(100, Math.max(0, Math.round((completed * 100) / total)))
}

/** Quiz options as stored: an array, or a JSON string of one. Anything else is no options. */
export function parseQuizOptions(stored: unknown): string[] {
  let value = stored
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown
    } catch {
      return []
    }
  }
  if (!Array.isArray(value)) return []
  return value.filter((option): option is string | number => typeof option === 'string' || typeof option === 'number').map(String)
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/

/**
 * The YouTube video id of a stored video_url: a bare id, or a youtube.com / youtu.be /
 * youtube-nocookie.com watch, embed, shorts or share link. Null for anything else.
 */
export function youtubeVideoId(videoUrl: string): string | null {
  const raw = videoUrl.trim()
  if (YOUTUBE_ID.test(raw)) return raw
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
  const host = url.hostname.toLowerCase().replace(/^(www\.|m\.)/, '')
  let id: string | null | undefined = null
  if (host === 'youtu.be') id = url.pathname.split('/')[1]
  else if (host === 'youtube.com' || host === 'youtube-nocookie.com') {
    const [, first, second] = url.pathname.split('/')
    if (first === 'watch') id = url.searchParams.get('v')
    else if (first === 'embed' || first === 'shorts' || first === 'live' || first === 'v') id = second
  }
  return id && YOUTUBE_ID.test(id) ? id : null
}

/** The privacy-enhanced player (the only video host the Content-Security-Policy lets the page frame). */
export function youtubeEmbedUrl(videoUrl: string): string | null {
  const id = youtubeVideoId(videoUrl)
  return id ? `https://www.youtube-nocookie.com/embed/${id}?rel=0` : null
}

/** A plain video the page may play: https, or a path on this site. Null for anything else. */
export function playableVideoUrl(videoUrl: string): string | null {
  const raw = videoUrl.trim()
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw
  try {
    return new URL(raw).protocol === 'https:' ? raw : null
  } catch {
    return null
  }
}

/** "$49" or "$49.50" from whole cents. */
export function formatCoursePrice(cents: number): string {
  const dollars = cents / 100
  return `$${Number.isInteger(dollars) ? dollars.toString() : dollars.toFixed(2)}`
}

/** The course page's search parameters, checked again inside the page (the route validates them without zod). */
export const CourseSearchSchema = z.object({
  lesson: z.uuid().optional().catch(undefined),
  session_id: text()
    .regex(/^cs_[A-Za-z0-9_]{1,200}$/)
    .optional()
    .catch(undefined),
})
export type CourseSearchParams = z.infer<typeof CourseSearchSchema>
