import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, count, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CatalogueResponseSchema,
  CompleteLessonResponseSchema,
  CourseDetailResponseSchema,
  EnrollResponseSchema,
  QuizAnswerResponseSchema,
  type CourseDetailResponse,
} from '#common/courses'
import { ErrorBodySchema } from '#common/errors'
import {
  courseEnrollments,
  courses,
  lessonProgress,
  lessons,
  quizAttempts,
  quizzes,
} from '#server/db/schema'
import { openDatabase } from '#server/db/client'
import { grantEnrollment, SEED_COURSES, seedCourses, seedCoursesIfEmpty, type SeedCourse } from '#server/services/courses'
import { startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { APP_ORIGIN, buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'
import { freePort, spawnEntry } from '../helpers/process'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let stripeApp: FastifyInstance
let stripe: FakeStripe
const stripeClock = fakeClock(new Date())
/** Every response body of this file, checked at the end for anything that looks like an answer key. */
const bodies: string[] = []

const FREE = 'getting-started-with-momentum-coach'
const PREMIUM = 'leading-a-workplace-coaching-program'

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  stripe = await startFakeStripe()
  stripeApp = await buildTestApp({ database, env: stripeEnv(stripe), clock: stripeClock })
  await seedCourses(app.db, { now: new Date() })
})

afterAll(async () => {
  await app?.close()
  await stripeApp?.close()
  await stripe?.close()
  await database?.destroy()
  for (const body of bodies) expect(body).not.toMatch(/correct_?answer/i)
})

async function call(target: FastifyInstance, method: 'GET' | 'POST', url: string, user?: SignedIn, payload?: unknown) {
  const response = await target.inject({
    method,
    url,
    headers: user ? user.headers : { origin: APP_ORIGIN },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  })
  bodies.push(response.body)
  return response
}

const get = (url: string, user?: SignedIn) => call(app, 'GET', url, user)
const post = (url: string, user?: SignedIn, payload?: unknown) => call(app, 'POST', url, user, payload)

async function detail(ref: string, user: SignedIn): Promise<CourseDetailResponse> {
  const response = await get(`/api/courses/${ref}`, user)
  expect(response.statusCode, response.body).toBe(200)
  return CourseDetailResponseSchema.parse(response.json())
}

async function enrollIn(ref: string, user: SignedIn) {
  const response = await post(`/api/courses/${ref}/enroll`, user)
  expect(response.statusCode, response.body).toBe(200)
  return EnrollResponseSchema.parse(response.json())
}

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into)
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      into.add(key)
      keysOf(child, into)
    }
  }
  return into
}

let courseCounter = 0
/** A course of `lessonCount` text lessons, written straight to the database. */
async function insertCourse(options: { lessonCount: number; premium?: boolean; active?: boolean }) {
  courseCounter += 1
  const [course] = await app.db
    .insert(courses)
    .values({
      slug: `test-course-${courseCounter}-${randomUUID().slice(0, 8)}`,
      title: `Test course ${courseCounter}`,
      description: 'A course made by the test.',
      category: 'business',
      isPremium: options.premium ?? false,
      priceCents: options.premium ? 2500 : null,
      isActive: options.active ?? true,
      orderIndex: 100 + courseCounter,
    })
    .returning()
  const rows = await app.db
    .insert(lessons)
    .values(
      Array.from({ length: options.lessonCount }, (_, index) => ({
        courseId: course!.id,
        title: `Lesson ${index + 1}`,
        orderIndex: index + 1,
        durationMinutes: 5,
        content: `Text of lesson ${index + 1}.`,
      })),
    )
    .returning()
  return { course: course!, lessons: rows.sort((a, b) => a.orderIndex - b.orderIndex) }
}

describe('the starter catalogue (seed)', () => {
  it('has at least four active courses across the three categories, a premium one with a price, 4–8 real lessons each', async () => {
    const user = await signedInUser(app)
    const response = await get('/api/courses', user)
    expect(response.statusCode).toBe(200)
    const { courses: list } = CatalogueResponseSchema.parse(response.json())
    const seeded = list.filter((course) => SEED_COURSES.some((seed) => seed.slug === course.slug))
    expect(seeded.length).toBeGreaterThanOrEqual(4)
    expect(new Set(seeded.map((course) => course.category))).toEqual(new Set(['product_training', 'marketing', 'business']))
    const premium = seeded.filter((course) => course.isPremium)
    expect(premium.length).toBeGreaterThanOrEqual(1)
    for (const course of premium) expect(course.priceCents).toBeGreaterThan(0)
    for (const course of seeded) {
      expect(course.lessonCount).toBeGreaterThanOrEqual(4)
      expect(course.lessonCount).toBeLessThanOrEqual(8)
      expect(course.thumbnailUrl).toMatch(/^\/courses\/[a-z-]+\.svg$/)
    }

    const videoTypes = new Set<string>()
    let questionCount = 0
    for (const seed of SEED_COURSES) {
      for (const lesson of seed.lessons) {
        if (lesson.video) videoTypes.add(lesson.video.type)
        expect(lesson.content).not.toMatch(/lorem|ipsum/i)
        // Real lessons: several paragraphs of text (a quiz lesson has a short introduction).
        expect(lesson.content.length).toBeGreaterThan(lesson.lessonType === 'quiz' ? 30 : 400)
        for (const quiz of lesson.quizzes ?? []) {
          questionCount += 1
          expect(quiz.options.length).toBeGreaterThanOrEqual(3)
          expect(quiz.options.length).toBeLessThanOrEqual(4)
        }
      }
    }
    expect(videoTypes).toEqual(new Set(['youtube', 'file']))
    expect(questionCount).toBeGreaterThanOrEqual(8)
  })

  it('is idempotent: seeding again changes no ids and duplicates nothing', async () => {
    const snapshot = async () => ({
      courses: await app.db.select({ id: courses.id, slug: courses.slug }).from(courses).orderBy(courses.slug),
      lessons: await app.db.select({ id: lessons.id, title: lessons.title }).from(lessons).orderBy(lessons.id),
      quizzes: await app.db.select({ id: quizzes.id, question: quizzes.question }).from(quizzes).orderBy(quizzes.id),
    })
    const before = await snapshot()
    const report = await seedCourses(app.db, { now: new Date() })
    expect(report.courses).toBe(SEED_COURSES.length)
    expect(await snapshot()).toEqual(before)
    // Not empty any more: the first-start seed does nothing.
    expect(await seedCoursesIfEmpty(app.db, new Date())).toBeNull()
  })

  it('updates content in place, removes what the content dropped and keeps enrollments’ stored progress right', async () => {
    const content: SeedCourse[] = [
      {
        slug: `seed-update-${randomUUID().slice(0, 8)}`,
        title: 'Seed update',
        description: 'Checks re-seeding.',
        thumbnailUrl: '/courses/goal-setting.svg',
        category: 'marketing',
        lessons: ['One', 'Two', 'Three', 'Four', 'Five'].map((title) => ({
          title,
          durationMinutes: 3,
          lessonType: 'text' as const,
          content: `Lesson ${title}.`,
          quizzes: [{ question: `Q ${title}?`, options: ['a', 'b', 'c'], correct: 'a' }],
        })),
      },
    ]
    await seedCourses(app.db, { content, now: new Date() })
    const user = await signedInUser(app)
    const slug = content[0]!.slug
    await enrollIn(slug, user)
    const first = await detail(slug, user)
    for (const lesson of first.lessons.slice(0, 4)) {
      expect((await post(`/api/lessons/${lesson.id}/complete`, user)).statusCode).toBe(200)
    }
    expect((await detail(slug, user)).course.enrollment?.progressPercentage).toBe(80)

    // The fifth lesson is dropped and the first retitled: 4 of 4 done now.
    content[0]!.lessons = content[0]!.lessons.slice(0, 4)
    content[0]!.lessons[0] = { ...content[0]!.lessons[0]!, title: 'One, revised' }
    await seedCourses(app.db, { content, now: new Date() })
    const after = await detail(slug, user)
    expect(after.lessons.map((lesson) => lesson.title)).toEqual(['One, revised', 'Two', 'Three', 'Four'])
    expect(after.lessons[0]!.id).toBe(first.lessons[0]!.id)
    expect(after.lessons[0]!.completed).toBe(true)
    expect(after.progress).toEqual({ completedLessons: 4, totalLessons: 4, percentage: 100 })
    expect(after.course.enrollment?.progressPercentage).toBe(100)
    expect(after.course.enrollment?.completedAt).not.toBeNull()
  })
})

describe('GET /api/courses (catalogue)', () => {
  it('needs a session', async () => {
    const response = await get('/api/courses')
    expect(response.statusCode).toBe(401)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('UNAUTHENTICATED')
  })

  it('lists active courses by order_index and leaves inactive ones out', async () => {
    const hidden = await insertCourse({ lessonCount: 4, active: false })
    const user = await signedInUser(app)
    const { courses: list } = CatalogueResponseSchema.parse((await get('/api/courses', user)).json())
    expect(list.map((course) => course.slug)).not.toContain(hidden.course.slug)
    const orders = await app.db.select({ slug: courses.slug, orderIndex: courses.orderIndex }).from(courses)
    const orderOf = new Map(orders.map((row) => [row.slug, row.orderIndex]))
    const listed = list.map((course) => orderOf.get(course.slug)!)
    expect(listed).toEqual([...listed].sort((a, b) => a - b))
    expect(list[0]!.slug).toBe(FREE)
    for (const course of list) expect(course.enrollment).toBeNull()
  })

  it('shows each user only their own enrollment and progress', async () => {
    const alice = await signedInUser(app)
    const bob = await signedInUser(app)
    await enrollIn(FREE, alice)
    const { lessons: lessonList } = await detail(FREE, alice)
    await post(`/api/lessons/${lessonList[0]!.id}/complete`, alice)

    const aliceList = CatalogueResponseSchema.parse((await get('/api/courses', alice)).json()).courses
    expect(aliceList.find((course) => course.slug === FREE)?.enrollment?.progressPercentage).toBe(17)
    const bobList = CatalogueResponseSchema.parse((await get('/api/courses', bob)).json()).courses
    expect(bobList.every((course) => course.enrollment === null)).toBe(true)
    const bobView = await detail(FREE, bob)
    expect(bobView.course.enrollment).toBeNull()
    expect(bobView.lessons.every((lesson) => !lesson.completed)).toBe(true)
  })
})

describe('GET /api/courses/:courseId', () => {
  it('finds a course by id or slug, and answers 404 for a missing one', async () => {
    const user = await signedInUser(app)
    const bySlug = await detail(FREE, user)
    const byId = await detail(bySlug.course.id, user)
    expect(byId.course.slug).toBe(FREE)
    for (const ref of [randomUUID(), 'no-such-course', 'Not%20a%20slug']) {
      const response = await get(`/api/courses/${ref}`, user)
      expect(response.statusCode).toBe(404)
      expect(ErrorBodySchema.parse(response.json()).error).toMatchObject({ code: 'NOT_FOUND', message: 'Course not found' })
    }
    expect((await get(`/api/courses/${FREE}`)).statusCode).toBe(401)
  })

  it('sends only the outline before enrolling, and never a quiz answer', async () => {
    const user = await signedInUser(app)
    const outline = await detail(FREE, user)
    expect(outline.course.enrollment).toBeNull()
    expect(outline.lessons.length).toBe(6)
    for (const lesson of outline.lessons) {
      expect(lesson).toMatchObject({ content: null, videoUrl: null, quizzes: [], completed: false })
    }
    expect(outline.lessons.find((lesson) => lesson.lessonType === 'quiz')?.quizCount).toBe(4)
    expect(outline.lessons.some((lesson) => lesson.hasVideo)).toBe(true)

    await enrollIn(FREE, user)
    const full = await detail(FREE, user)
    expect(full.lessons[0]!.content).toContain('Momentum Coach')
    expect(full.lessons[0]!).toMatchObject({ videoType: 'youtube', hasVideo: true })
    expect(full.lessons[2]!).toMatchObject({ videoType: 'file' })
    const quiz = full.lessons.find((lesson) => lesson.lessonType === 'quiz')!
    expect(quiz.quizzes).toHaveLength(4)
    for (const question of quiz.quizzes) {
      expect(question.options.length).toBeGreaterThanOrEqual(3)
      expect(question.lastAttempt).toBeNull()
    }
    const keys = keysOf(full)
    for (const forbidden of ['correctAnswer', 'correct_answer', 'correct', 'answerKey']) expect(keys.has(forbidden)).toBe(false)
  })

  it('parses options stored as a JSON string', async () => {
    const { course, lessons: rows } = await insertCourse({ lessonCount: 4 })
    await app.db.insert(quizzes).values({
      lessonId: rows[0]!.id,
      question: 'Stored the old way?',
      options: JSON.stringify(['Yes', 'No', 'Maybe']),
      correctAnswer: 'Yes',
      orderIndex: 1,
    })
    const user = await signedInUser(app)
    await enrollIn(course.slug, user)
    const view = await detail(course.slug, user)
    const question = view.lessons[0]!.quizzes[0]!
    expect(question.options).toEqual(['Yes', 'No', 'Maybe'])
    const answered = await post(`/api/quizzes/${question.id}/answer`, user, { answer: 'Yes' })
    expect(QuizAnswerResponseSchema.parse(answered.json())).toMatchObject({ isCorrect: true, pointsEarned: 1 })
  })

  it('hides an inactive course from those not enrolled, but keeps it for those who are', async () => {
    const { course } = await insertCourse({ lessonCount: 4 })
    const enrolled = await signedInUser(app)
    await enrollIn(course.slug, enrolled)
    await app.db.update(courses).set({ isActive: false }).where(eq(courses.id, course.id))
    expect((await get(`/api/courses/${course.slug}`, enrolled)).statusCode).toBe(200)
    const other = await signedInUser(app)
    expect((await get(`/api/courses/${course.slug}`, other)).statusCode).toBe(404)
    expect((await post(`/api/courses/${course.slug}/enroll`, other)).statusCode).toBe(404)
  })
})

describe('POST /api/courses/:courseId/enroll', () => {
  it('enrolls in a free course once', async () => {
    const user = await signedInUser(app)
    const first = await enrollIn(FREE, user)
    expect(first).toMatchObject({ outcome: 'enrolled', source: 'free', alreadyEnrolled: false })
    const second = await enrollIn(FREE, user)
    expect(second).toMatchObject({ outcome: 'enrolled', source: 'free', alreadyEnrolled: true })
    const [{ n } = { n: 0 }] = await app.db
      .select({ n: count() })
      .from(courseEnrollments)
      .where(eq(courseEnrollments.userId, user.user.id))
    expect(n).toBe(1)
  })

  it('needs a session and a same-origin request', async () => {
    const anonymous = await post(`/api/courses/${FREE}/enroll`)
    expect(anonymous.statusCode).toBe(401)
    const user = await signedInUser(app)
    const crossSite = await app.inject({
      method: 'POST',
      url: `/api/courses/${FREE}/enroll`,
      headers: { cookie: user.cookie, origin: 'https://evil.example' },
    })
    expect(crossSite.statusCode).toBe(403)
    expect(await enrollmentsOf(user.user.id)).toBe(0)
  })

  it('refuses an unconfirmed email with 403 EMAIL_NOT_CONFIRMED: free, testing-mode premium and Stripe premium alike', async () => {
    const user = await signedInUser(app, { confirmed: false })
    for (const ref of [FREE, PREMIUM]) {
      const response = await post(`/api/courses/${ref}/enroll`, user)
      expect(response.statusCode, response.body).toBe(403)
      expect(ErrorBodySchema.parse(response.json()).error.code).toBe('EMAIL_NOT_CONFIRMED')
    }
    expect(await enrollmentsOf(user.user.id)).toBe(0)

    const stripeUser = await signedInUser(stripeApp, { confirmed: false })
    const sessionsBefore = stripe.requestsTo('/v1/checkout/sessions', 'POST').length
    const customersBefore = stripe.requestsTo('/v1/customers', 'POST').length
    const premium = await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, stripeUser)
    expect(premium.statusCode, premium.body).toBe(403)
    expect(ErrorBodySchema.parse(premium.json()).error.code).toBe('EMAIL_NOT_CONFIRMED')
    // Refused before anything is made at Stripe.
    expect(stripe.requestsTo('/v1/checkout/sessions', 'POST')).toHaveLength(sessionsBefore)
    expect(stripe.requestsTo('/v1/customers', 'POST')).toHaveLength(customersBefore)
    expect(await enrollmentsOf(stripeUser.user.id)).toBe(0)
  })

  it('enrolls in a premium course at once in payment testing mode (labelled "testing")', async () => {
    const user = await signedInUser(app)
    const result = await enrollIn(PREMIUM, user)
    expect(result).toMatchObject({ outcome: 'enrolled', source: 'testing', alreadyEnrolled: false })
    const view = await detail(PREMIUM, user)
    expect(view.course.enrollment?.source).toBe('testing')
    expect(view.lessons[0]!.content).not.toBeNull()
  })

  it('never enrolls in a premium course without payment when Stripe is configured', async () => {
    const user = await signedInUser(stripeApp)
    const response = await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)
    expect(response.statusCode, response.body).toBe(200)
    const checkout = EnrollResponseSchema.parse(response.json())
    expect(checkout.outcome).toBe('checkout')
    expect(await enrollmentsOf(user.user.id)).toBe(0)
    // The content stays locked until the payment arrives.
    const view = CourseDetailResponseSchema.parse((await call(stripeApp, 'GET', `/api/courses/${PREMIUM}`, user)).json())
    expect(view.lessons.every((lesson) => lesson.content === null && lesson.quizzes.length === 0)).toBe(true)
    expect((await call(stripeApp, 'POST', `/api/lessons/${view.lessons[0]!.id}/complete`, user)).statusCode).toBe(403)
    // Testing mode's plan activation is refused too: there is no way around the payment.
    expect((await call(stripeApp, 'POST', '/api/billing/testing-activation', user, { plan: 'basic' })).statusCode).toBe(409)

    // A free course needs no payment even then.
    const free = await call(stripeApp, 'POST', `/api/courses/${FREE}/enroll`, user)
    expect(EnrollResponseSchema.parse(free.json())).toMatchObject({ outcome: 'enrolled', source: 'free' })
  })

  it('makes a one-time embedded checkout for the course price, and the paid webhook enrolls exactly once', async () => {
    const user = await signedInUser(stripeApp)
    const response = await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)
    const checkout = EnrollResponseSchema.parse(response.json())
    if (checkout.outcome !== 'checkout') throw new Error('expected a checkout')
    expect(checkout.clientSecret).toMatch(/^cs_test_/)

    const [course] = await app.db.select().from(courses).where(eq(courses.slug, PREMIUM))
    const session = stripe.sessions.get(checkout.sessionId)!
    expect(session).toMatchObject({
      mode: 'payment',
      ui_mode: 'embedded_page',
      client_reference_id: user.user.id,
      metadata: { userId: user.user.id, kind: 'course', courseId: course!.id },
      return_url: `${APP_ORIGIN}/courses/${course!.id}?session_id={CHECKOUT_SESSION_ID}`,
    })
    const price = stripe.prices.get(session._lineItems[0]!.price as string)!
    expect(price).toMatchObject({ unit_amount: course!.priceCents, currency: 'usd', type: 'one_time', lookup_key: `course_${PREMIUM}` })
    expect(session.customer).toMatch(/^cus_/)

    // Asking again reuses the customer and the price.
    const again = EnrollResponseSchema.parse((await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)).json())
    if (again.outcome !== 'checkout') throw new Error('expected a checkout')
    expect(stripe.sessions.get(again.sessionId)!.customer).toBe(session.customer)
    expect([...stripe.prices.values()].filter((entry) => entry.lookup_key === `course_${PREMIUM}`)).toHaveLength(1)
    expect(await enrollmentsOf(user.user.id)).toBe(0)

    const events = stripe.completeCheckout(checkout.sessionId)
    expect(events.map((event) => event.type)).toEqual(['checkout.session.completed'])
    for (const delivery of [events[0]!, events[0]!]) {
      const { payload, headers } = stripe.sign(delivery)
      const webhook = await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers, payload })
      expect(webhook.statusCode, webhook.body).toBe(200)
    }
    // The same payment reported again under a new event id changes nothing either.
    const { payload, headers } = stripe.sign({ ...events[0]!, id: `evt_replay_${randomUUID().slice(0, 8)}` })
    expect((await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers, payload })).statusCode).toBe(200)

    expect(await enrollmentsOf(user.user.id)).toBe(1)
    const view = CourseDetailResponseSchema.parse((await call(stripeApp, 'GET', `/api/courses/${PREMIUM}`, user)).json())
    expect(view.course.enrollment?.source).toBe('stripe')
    expect(view.lessons[0]!.content).not.toBeNull()
    const [row] = await app.db.select().from(courseEnrollments).where(eq(courseEnrollments.userId, user.user.id))
    expect(row!.stripeCheckoutSessionId).toBe(checkout.sessionId)
    // Enrolled now: enrolling again answers with the enrollment, not another checkout.
    const enrolled = EnrollResponseSchema.parse((await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)).json())
    expect(enrolled).toMatchObject({ outcome: 'enrolled', source: 'stripe', alreadyEnrolled: true })
  })

  it('an unpaid or forged checkout enrolls nobody, and a full refund ends the paid enrollment', async () => {
    const user = await signedInUser(stripeApp)
    const first = EnrollResponseSchema.parse((await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)).json())
    if (first.outcome !== 'checkout') throw new Error('expected a checkout')
    const unpaid = stripe.completeCheckout(first.sessionId, { paymentStatus: 'unpaid' })
    const signedUnpaid = stripe.sign(unpaid[0]!)
    expect((await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers: signedUnpaid.headers, payload: signedUnpaid.payload })).statusCode).toBe(200)
    expect(await enrollmentsOf(user.user.id)).toBe(0)

    const forged = stripe.sign(unpaid[0]!, { secret: 'whsec_not_the_secret' })
    expect((await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers: forged.headers, payload: forged.payload })).statusCode).toBe(400)

    // Paid on a second attempt a minute later, then refunded in full.
    stripeClock.advance(61_000)
    const second = EnrollResponseSchema.parse((await call(stripeApp, 'POST', `/api/courses/${PREMIUM}/enroll`, user)).json())
    if (second.outcome !== 'checkout') throw new Error('expected a checkout')
    expect(second.sessionId).not.toBe(first.sessionId)
    for (const event of stripe.completeCheckout(second.sessionId)) {
      const { payload, headers } = stripe.sign(event)
      expect((await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers, payload })).statusCode).toBe(200)
    }
    expect(await enrollmentsOf(user.user.id)).toBe(1)
    const customer = stripe.sessions.get(second.sessionId)!.customer as string
    for (const event of stripe.refundLatestCharge(customer)) {
      const { payload, headers } = stripe.sign(event)
      expect((await stripeApp.inject({ method: 'POST', url: '/api/webhooks/stripe', headers, payload })).statusCode).toBe(200)
    }
    expect(await enrollmentsOf(user.user.id)).toBe(0)
  })

  it('a paid checkout enrolls exactly once, however often it is reported', async () => {
    const user = await signedInUser(stripeApp)
    const [course] = await app.db.select().from(courses).where(eq(courses.slug, PREMIUM))
    const grant = () =>
      grantEnrollment(app.db, { userId: user.user.id, courseId: course!.id, source: 'stripe', stripeCheckoutSessionId: 'cs_test_123', now: new Date() })
    const results = await Promise.all([grant(), grant(), grant()])
    expect(results.filter((result) => result.created)).toHaveLength(1)
    expect(new Set(results.map((result) => result.enrollment.id)).size).toBe(1)
    expect(await enrollmentsOf(user.user.id)).toBe(1)
  })
})

async function enrollmentsOf(userId: string): Promise<number> {
  const [row] = await app.db.select({ n: count() }).from(courseEnrollments).where(eq(courseEnrollments.userId, userId))
  return Number(row?.n ?? 0)
}

describe('POST /api/lessons/:lessonId/complete', () => {
  it('refuses a lesson of a course the user is not enrolled in (403), an unknown lesson (404) and a bad id (400)', async () => {
    const user = await signedInUser(app)
    const { lessons: lessonList } = await detail(FREE, user)
    const response = await post(`/api/lessons/${lessonList[0]!.id}/complete`, user)
    expect(response.statusCode).toBe(403)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('FORBIDDEN')
    const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(lessonProgress).where(eq(lessonProgress.userId, user.user.id))
    expect(n).toBe(0)

    expect((await post(`/api/lessons/${randomUUID()}/complete`, user)).statusCode).toBe(404)
    const bad = await post('/api/lessons/not-a-uuid/complete', user)
    expect(bad.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(bad.json()).error.field).toBe('lessonId')
    expect((await post(`/api/lessons/${lessonList[0]!.id}/complete`)).statusCode).toBe(401)
  })

  it('counts a lesson completed twice only once', async () => {
    const user = await signedInUser(app)
    await enrollIn(FREE, user)
    const { lessons: lessonList } = await detail(FREE, user)
    const url = `/api/lessons/${lessonList[1]!.id}/complete`
    const first = CompleteLessonResponseSchema.parse((await post(url, user)).json())
    expect(first).toMatchObject({ newlyCompleted: true, progress: { completedLessons: 1, totalLessons: 6, percentage: 17 } })
    const second = CompleteLessonResponseSchema.parse((await post(url, user)).json())
    expect(second).toMatchObject({ newlyCompleted: false, progress: { completedLessons: 1, totalLessons: 6, percentage: 17 } })
    const rows = await app.db
      .select()
      .from(lessonProgress)
      .where(and(eq(lessonProgress.userId, user.user.id), eq(lessonProgress.lessonId, lessonList[1]!.id)))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.completionDate?.toISOString()).toBe(first.enrollment.lastAccessedAt)
    const view = await detail(FREE, user)
    expect(view.progress.completedLessons).toBe(1)
    expect(view.lessons[1]!.completed).toBe(true)
  })

  it('stores the rounded share of completed lessons, last_accessed_at, and completed_at at 100', async () => {
    const { course, lessons: rows } = await insertCourse({ lessonCount: 8 })
    const user = await signedInUser(app)
    await enrollIn(course.id, user)
    // 1/8 = 12.5 → 13, 2/8 = 25, 3/8 = 37.5 → 38, ... 8/8 = 100
    const expected = [13, 25, 38, 50, 63, 75, 88, 100]
    for (const [index, lesson] of rows.entries()) {
      const result = CompleteLessonResponseSchema.parse((await post(`/api/lessons/${lesson.id}/complete`, user)).json())
      expect(result.progress.percentage).toBe(expected[index])
      const [stored] = await app.db
        .select()
        .from(courseEnrollments)
        .where(and(eq(courseEnrollments.userId, user.user.id), eq(courseEnrollments.courseId, course.id)))
      expect(stored!.progressPercentage).toBe(expected[index])
      expect(stored!.lastAccessedAt).not.toBeNull()
      expect(stored!.completedAt === null).toBe(index < rows.length - 1)
    }
    const catalogue = CatalogueResponseSchema.parse((await get('/api/courses', user)).json()).courses
    expect(catalogue.find((entry) => entry.id === course.id)?.enrollment).toMatchObject({ progressPercentage: 100 })

    const three = await insertCourse({ lessonCount: 3 })
    await enrollIn(three.course.id, user)
    const percentages = []
    for (const lesson of three.lessons) {
      percentages.push(CompleteLessonResponseSchema.parse((await post(`/api/lessons/${lesson.id}/complete`, user)).json()).progress.percentage)
    }
    expect(percentages).toEqual([33, 67, 100])
  })

  it('keeps progress right when several lessons are completed at the same time', async () => {
    const { course, lessons: rows } = await insertCourse({ lessonCount: 6 })
    const user = await signedInUser(app)
    await enrollIn(course.id, user)
    const results = await Promise.all(rows.map((lesson) => post(`/api/lessons/${lesson.id}/complete`, user)))
    for (const result of results) expect(result.statusCode).toBe(200)
    const [stored] = await app.db
      .select()
      .from(courseEnrollments)
      .where(and(eq(courseEnrollments.userId, user.user.id), eq(courseEnrollments.courseId, course.id)))
    expect(stored!.progressPercentage).toBe(100)
    expect(stored!.completedAt).not.toBeNull()
  })
})

describe('POST /api/lessons/:lessonId/open', () => {
  it('remembers the last opened lesson for the enrolled user only', async () => {
    const user = await signedInUser(app)
    const other = await signedInUser(app)
    await enrollIn(FREE, user)
    const { lessons: lessonList } = await detail(FREE, user)
    const target = lessonList[3]!.id
    expect((await post(`/api/lessons/${target}/open`, other)).statusCode).toBe(403)
    expect((await post(`/api/lessons/${target}/open`, user)).statusCode).toBe(204)
    expect((await detail(FREE, user)).course.enrollment?.lastLessonId).toBe(target)
    expect((await detail(FREE, other)).course.enrollment).toBeNull()
  })
})

describe('POST /api/quizzes/:quizId/answer', () => {
  async function quizOf(user: SignedIn) {
    const view = await detail(FREE, user)
    const lesson = view.lessons.find((entry) => entry.lessonType === 'quiz')!
    return { lesson, question: lesson.quizzes[0]! }
  }

  it('grades on the server, stores the attempt, and sends back only right or wrong', async () => {
    const user = await signedInUser(app)
    await enrollIn(FREE, user)
    const { question } = await quizOf(user)
    expect(question.question).toBe('How many life areas do you rate during the goal intake?')

    const wrong = await post(`/api/quizzes/${question.id}/answer`, user, { answer: 'Five' })
    expect(wrong.statusCode).toBe(200)
    expect(wrong.json()).toEqual({ quizId: question.id, isCorrect: false, pointsEarned: 0 })

    const right = await post(`/api/quizzes/${question.id}/answer`, user, { answer: 'Eight' })
    expect(QuizAnswerResponseSchema.parse(right.json())).toEqual({ quizId: question.id, isCorrect: true, pointsEarned: 1 })

    // Points are earned once.
    const again = await post(`/api/quizzes/${question.id}/answer`, user, { answer: 'Eight' })
    expect(again.json()).toMatchObject({ isCorrect: true, pointsEarned: 0 })

    const attempts = await app.db
      .select()
      .from(quizAttempts)
      .where(and(eq(quizAttempts.userId, user.user.id), eq(quizAttempts.quizId, question.id)))
      .orderBy(quizAttempts.createdAt)
    expect(attempts.map((row) => [row.userAnswer, row.isCorrect, row.pointsEarned])).toEqual([
      ['Five', false, 0],
      ['Eight', true, 1],
      ['Eight', true, 0],
    ])
    expect(new Set(attempts.map((row) => row.courseId)).size).toBe(1)

    const after = await quizOf(user)
    expect(after.question.lastAttempt).toEqual({ answer: 'Eight', isCorrect: true })
    // Another user's attempts are not theirs to see.
    const other = await signedInUser(app)
    await enrollIn(FREE, other)
    expect((await quizOf(other)).question.lastAttempt).toBeNull()
  })

  it('refuses answers from users not enrolled (403), unknown questions (404) and answers that are not an option (400)', async () => {
    const enrolled = await signedInUser(app)
    await enrollIn(FREE, enrolled)
    const { question } = await quizOf(enrolled)
    const outsider = await signedInUser(app)
    const refused = await post(`/api/quizzes/${question.id}/answer`, outsider, { answer: 'Eight' })
    expect(refused.statusCode).toBe(403)
    const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(quizAttempts).where(eq(quizAttempts.userId, outsider.user.id))
    expect(n).toBe(0)

    expect((await post(`/api/quizzes/${randomUUID()}/answer`, enrolled, { answer: 'Eight' })).statusCode).toBe(404)
    const notAnOption = await post(`/api/quizzes/${question.id}/answer`, enrolled, { answer: 'Nine' })
    expect(notAnOption.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(notAnOption.json()).error.field).toBe('answer')
    const empty = await post(`/api/quizzes/${question.id}/answer`, enrolled, { answer: '   ' })
    expect(empty.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(empty.json()).error.field).toBe('answer')
    const missing = await post(`/api/quizzes/${question.id}/answer`, enrolled, {})
    expect(ErrorBodySchema.parse(missing.json()).error.field).toBe('answer')
    expect((await post(`/api/quizzes/${question.id}/answer`, undefined, { answer: 'Eight' })).statusCode).toBe(401)
  })
})

describe('OpenAPI', () => {
  it('documents every course operation as needing a session', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>
    }
    for (const path of ['/api/courses', '/api/courses/{courseId}', '/api/courses/{courseId}/enroll', '/api/lessons/{lessonId}/complete', '/api/lessons/{lessonId}/open', '/api/quizzes/{quizId}/answer']) {
      const operations = Object.values(document.paths[path] ?? {})
      expect(operations.length, path).toBeGreaterThan(0)
      for (const operation of operations) expect(operation.security, path).toEqual([{ session: [] }])
    }
    const text = JSON.stringify(document.paths)
    expect(text).not.toMatch(/correct_?answer/i)
  })
})

describe('the first start of the embedded default', () => {
  const startAndStop = async (env: Record<string, string>) => {
    const server = spawnEntry('server/index.ts', { PORT: String(await freePort()), ...env })
    await server.waitFor(/Momentum Coach is ready/, 60_000)
    server.child.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
    return server.output()
  }

  it('loads the catalogue once when the courses table is empty, and never with DATABASE_URL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-courses-'))
    expect(await startAndStop({ DATA_DIR: dataDir })).toContain('Loaded the starter course catalogue: 4 courses')
    expect(await startAndStop({ DATA_DIR: dataDir })).not.toContain('Loaded the starter course catalogue')
    const embedded = await openDatabase({ dataDir })
    const [row] = await embedded.db.select({ n: count() }).from(courses)
    await embedded.close()
    expect(Number(row?.n)).toBe(SEED_COURSES.length)

    if (hasPostgres()) {
      const external = await createTestDatabase('postgres')
      try {
        expect(await startAndStop({ DATABASE_URL: external.url })).not.toContain('Loaded the starter course catalogue')
        const [empty] = await external.db.select({ n: count() }).from(courses)
        expect(Number(empty?.n)).toBe(0)
      } finally {
        await external.destroy()
      }
    }
  }, 120_000)
})
