import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  CatalogueResponseSchema,
  CompleteLessonResponseSchema,
  CourseDetailResponseSchema,
  CourseParamsSchema,
  EnrollResponseSchema,
  LessonParamsSchema,
  QuizAnswerBodySchema,
  QuizAnswerResponseSchema,
  QuizParamsSchema,
} from '#common/courses'
import { ErrorBodySchema } from '#common/errors'
import {
  answerQuiz,
  completeLesson,
  enroll,
  getCourseDetail,
  listCatalogue,
  openLesson,
} from '../services/courses'

const readErrors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }
const writeErrors = { ...readErrors, 403: ErrorBodySchema, 502: ErrorBodySchema, 503: ErrorBodySchema }

/** Per client address; generous for a person clicking through lessons, tight for a script. */
const ENROLL_LIMIT = { max: 20, timeWindow: '1 minute', groupId: 'course-enroll' }
const PROGRESS_LIMIT = { max: 120, timeWindow: '1 minute', groupId: 'course-progress' }
const ANSWER_LIMIT = { max: 60, timeWindow: '1 minute', groupId: 'course-answer' }

/** Courses (spec 2 §2–§4, §7): catalogue, course page, enrolling, lesson progress and quizzes. */
const coursesRoutes: FastifyPluginAsyncZod = async (app) => {
  const noStore = { 'cache-control': 'no-store' }

  app.get(
    '/api/courses',
    {
      schema: {
        tags: ['courses'],
        summary: 'The catalogue: active courses by order, each with the signed-in user’s enrollment and progress',
        response: { 200: CatalogueResponseSchema, ...readErrors },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      reply.headers(noStore)
      return { courses: await listCatalogue(app.db, request.session!.user.id) }
    },
  )

  app.get(
    '/api/courses/:courseId',
    {
      schema: {
        tags: ['courses'],
        summary: 'One course (by id or slug) with its lessons, questions (never their answers) and the user’s progress',
        params: CourseParamsSchema,
        response: { 200: CourseDetailResponseSchema, ...readErrors },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      reply.headers(noStore)
      return getCourseDetail(app.db, request.session!.user.id, request.params.courseId)
    },
  )

  app.post(
    '/api/courses/:courseId/enroll',
    {
      schema: {
        tags: ['courses'],
        summary:
          'Enroll: a free course at once; a premium one through an embedded Stripe Checkout Session (the webhook enrolls), or at once in payment testing mode',
        params: CourseParamsSchema,
        response: { 200: EnrollResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', rateLimit: ENROLL_LIMIT },
    },
    async (request, reply) => {
      reply.headers(noStore)
      const user = request.session!.user
      return enroll(
        // app.billing is Stripe billing when the keys are set (registered before this plugin), else testing mode.
        { db: app.db, clock: app.clock, billing: app.billing, stripeConfigured: Boolean(app.config.stripe), appUrl: app.config.appUrl, log: app.log as never },
        { id: user.id, email: user.email, fullName: user.fullName },
        request.params.courseId,
      )
    },
  )

  app.post(
    '/api/lessons/:lessonId/complete',
    {
      schema: {
        tags: ['courses'],
        summary: 'Mark a lesson complete (once; a second time changes nothing) and store the course progress',
        params: LessonParamsSchema,
        response: { 200: CompleteLessonResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', rateLimit: PROGRESS_LIMIT },
    },
    async (request, reply) => {
      reply.headers(noStore)
      const result = await completeLesson(app.db, app.clock, request.session!.user.id, request.params.lessonId)
      return { ...result, completed: true as const }
    },
  )

  app.post(
    '/api/lessons/:lessonId/open',
    {
      schema: {
        tags: ['courses'],
        summary: 'Remember the lesson the user opened, so Continue Learning resumes there',
        params: LessonParamsSchema,
        response: { 204: z.undefined(), ...writeErrors },
      },
      config: { auth: 'session', rateLimit: PROGRESS_LIMIT },
    },
    async (request, reply) => {
      await openLesson(app.db, app.clock, request.session!.user.id, request.params.lessonId)
      return reply.code(204).send()
    },
  )

  app.post(
    '/api/quizzes/:quizId/answer',
    {
      schema: {
        tags: ['courses'],
        summary: 'Answer a quiz question: graded on the server, the attempt stored, right or wrong returned',
        params: QuizParamsSchema,
        body: QuizAnswerBodySchema,
        response: { 200: QuizAnswerResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', rateLimit: ANSWER_LIMIT },
    },
    async (request, reply) => {
      reply.headers(noStore)
      return answerQuiz(app.db, app.clock, request.session!.user.id, request.params.quizId, request.body.answer)
    },
  )
}

export default coursesRoutes
