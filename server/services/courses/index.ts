/**
 * Training courses: the catalogue, a course with its lessons and the user's progress, enrolling
 * (free, testing mode, or a one-time Stripe payment through billing), lesson progress and
 * server-graded quizzes. Every query about a user's data is filtered by the user id the route
 * takes from the session.
 */
import type { Logger } from 'pino'
import type { Db } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import type { Billing, CheckoutUser } from '#server/services/billing'
import { answerQuiz, completeLesson, enroll, getCourseDetail, listCatalogue, openLesson } from './courses'
import { COURSE_CHECKOUT_KIND, completeCoursePurchase, refundCoursePurchase, type CoursePriceCache } from './payments'

export { grantEnrollment } from './payments'
export { seedCourses, seedCoursesIfEmpty, validateSeedContent } from './seed'
export { SEED_COURSES, type SeedCourse } from './seed-content'

type CoursesDeps = { db: Db; clock: Clock; log: Logger; billing: Billing; appUrl: string }

export function createCourses(deps: CoursesDeps) {
  const { db, clock } = deps
  const priceCache: CoursePriceCache = new Map()
  deps.billing.registerPaymentKind(COURSE_CHECKOUT_KIND, { checkoutCompleted: completeCoursePurchase, refunded: refundCoursePurchase })
  return {
    listCatalogue: (userId: string) => listCatalogue(db, userId),
    getCourseDetail: (userId: string, ref: string) => getCourseDetail(db, userId, ref),
    enroll: (user: CheckoutUser, ref: string) => enroll({ ...deps, priceCache }, user, ref),
    completeLesson: (userId: string, lessonId: string) => completeLesson(db, clock, userId, lessonId),
    openLesson: (userId: string, lessonId: string) => openLesson(db, clock, userId, lessonId),
    answerQuiz: (userId: string, quizId: string, answer: string) => answerQuiz(db, clock, userId, quizId, answer),
  }
}
