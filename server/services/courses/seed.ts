/**
 * Loads the starter course catalogue (./course-content.ts) idempotently: courses are upserted by
 * slug, lessons by (course, order), questions by (lesson, order); lessons and questions the content
 * no longer has are removed from the seeded courses. All of it in one transaction.
 */
import { and, asc, count, eq, inArray, notInArray } from 'drizzle-orm'
import type { Db, DbExecutor } from '#server/db/client'
import { courses, lessons, quizzes } from '#server/db/schema'
import { recomputeCourseProgress } from './courses'
import { SEED_COURSES, type SeedCourse } from './seed-content'

type SeedReport = { courses: number; lessons: number; quizzes: number }

/** Throws on content that would break the product's rules (caught by the unit test, never at runtime). */
export function validateSeedContent(content: SeedCourse[]): void {
  const slugs = new Set<string>()
  for (const course of content) {
    const where = `course "${course.slug}"`
    if (slugs.has(course.slug)) throw new Error(`${where} appears twice`)
    slugs.add(course.slug)
    if (course.lessons.length < 4 || course.lessons.length > 8) throw new Error(`${where} must have 4 to 8 lessons`)
    if (course.priceCents !== undefined && (!Number.isInteger(course.priceCents) || course.priceCents <= 0)) {
      throw new Error(`${where} has an invalid price`)
    }
    for (const lesson of course.lessons) {
      if (lesson.content.trim().length === 0) throw new Error(`${where}, lesson "${lesson.title}" has no text`)
      if (lesson.lessonType === 'quiz' && !lesson.quizzes?.length) throw new Error(`${where}, lesson "${lesson.title}" is a quiz without questions`)
      for (const quiz of lesson.quizzes ?? []) {
        if (quiz.options.length < 3 || quiz.options.length > 4) throw new Error(`"${quiz.question}" must have 3 or 4 options`)
        if (new Set(quiz.options).size !== quiz.options.length) throw new Error(`"${quiz.question}" repeats an option`)
        if (!quiz.options.includes(quiz.correct)) throw new Error(`"${quiz.question}": the correct answer is not an option`)
      }
    }
  }
}

async function seedOne(tx: DbExecutor, course: SeedCourse, orderIndex: number, now: Date, report: SeedReport): Promise<string> {
  const values = {
    title: course.title,
    description: course.description,
    thumbnailUrl: course.thumbnailUrl,
    category: course.category,
    isPremium: course.priceCents !== undefined,
    priceCents: course.priceCents ?? null,
    isActive: course.isActive ?? true,
    orderIndex,
    updatedAt: now,
  }
  const [row] = await tx
    .insert(courses)
    .values({ slug: course.slug, ...values, createdAt: now })
    .onConflictDoUpdate({ target: courses.slug, set: values })
    .returning({ id: courses.id })
  const courseId = row!.id
  report.courses += 1

  const orders: number[] = []
  for (const [index, lesson] of course.lessons.entries()) {
    const lessonOrder = index + 1
    orders.push(lessonOrder)
    const lessonValues = {
      title: lesson.title,
      durationMinutes: lesson.durationMinutes,
      lessonType: lesson.lessonType,
      videoUrl: lesson.video?.url ?? null,
      videoType: lesson.video?.type ?? null,
      content: lesson.content,
      updatedAt: now,
    }
    const [lessonRow] = await tx
      .insert(lessons)
      .values({ courseId, orderIndex: lessonOrder, ...lessonValues, createdAt: now })
      .onConflictDoUpdate({ target: [lessons.courseId, lessons.orderIndex], set: lessonValues })
      .returning({ id: lessons.id })
    const lessonId = lessonRow!.id
    report.lessons += 1

    // Questions have no unique key: match them by their order within the lesson.
    const existing = await tx
      .select({ id: quizzes.id, orderIndex: quizzes.orderIndex })
      .from(quizzes)
      .where(eq(quizzes.lessonId, lessonId))
      .orderBy(asc(quizzes.orderIndex), asc(quizzes.createdAt))
    const byOrder = new Map<number, string>()
    const duplicates: string[] = []
    for (const quiz of existing) {
      if (byOrder.has(quiz.orderIndex)) duplicates.push(quiz.id)
      else byOrder.set(quiz.orderIndex, quiz.id)
    }
    const keep = new Set<string>()
    for (const [quizIndex, quiz] of (lesson.quizzes ?? []).entries()) {
      const quizOrder = quizIndex + 1
      const quizValues = { question: quiz.question, options: quiz.options, correctAnswer: quiz.correct, points: quiz.points ?? 1, updatedAt: now }
      const id = byOrder.get(quizOrder)
      if (id) {
        await tx.update(quizzes).set(quizValues).where(eq(quizzes.id, id))
        keep.add(id)
      } else {
        await tx.insert(quizzes).values({ lessonId, orderIndex: quizOrder, ...quizValues, createdAt: now })
      }
      report.quizzes += 1
    }
    const stale = [...byOrder.values()].filter((id) => !keep.has(id)).concat(duplicates)
    if (stale.length > 0) await tx.delete(quizzes).where(inArray(quizzes.id, stale))
  }
  await tx.delete(lessons).where(and(eq(lessons.courseId, courseId), notInArray(lessons.orderIndex, orders)))
  return courseId
}

/** Loads the starter catalogue; running it again changes nothing but the content that changed. */
export async function seedCourses(db: Db, options: { now: Date; content?: SeedCourse[] }): Promise<SeedReport> {
  const content = options.content ?? SEED_COURSES
  validateSeedContent(content)
  const { now } = options
  return db.transaction(async (tx) => {
    const report: SeedReport = { courses: 0, lessons: 0, quizzes: 0 }
    const ids: string[] = []
    for (const [index, course] of content.entries()) ids.push(await seedOne(tx, course, index, now, report))
    // Lessons may have been added or removed: keep every enrollment's stored progress right.
    await recomputeCourseProgress(tx, ids, now)
    return report
  })
}

/** Seeds only when there is no course at all (the embedded database's first start). */
export async function seedCoursesIfEmpty(db: Db, now: Date): Promise<SeedReport | null> {
  const [row] = await db.select({ n: count() }).from(courses)
  if (Number(row?.n ?? 0) > 0) return null
  return seedCourses(db, { now })
}
