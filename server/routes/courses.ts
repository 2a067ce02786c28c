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
import { checkoutUser } from '#server/services/billing'

const readErrors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }
const writeErrors = { ...readErrors, 403: ErrorBodySchema, 502: ErrorBodySchema, 503: ErrorBodySchema }

/** Per client address; generous for a person clicking through lessons, tight for a script. */
const ENROLL_LIMIT = { max: 20, timeWindow: '1 minute', groupId: 'course-enroll' }
const PROGRESS_LIMIT = { max: 120, timeWindow: '1 minute', groupId: 'course-progress' }
const ANSWER_LIMIT = { max: 60, timeWindow: '1 minute', groupId: 'course-answer' }

/** Courses: catalogue, course page, enrolling, lesson progress and quizzes. */
const coursesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { courses } = app.services

  app.get(
    '/api/courses',
    {
      schema: {
        operationId: 'listCourses',
        tags: ['courses'],
        summary: 'The catalogue: active courses by order, each with the signed-in user’s enrollment and progress',
        response: { 200: CatalogueResponseSchema, ...readErrors },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => ({ courses: await courses.listCatalogue(request.user.id) }),
  )

  app.get(
    '/api/courses/:courseId',
    {
      schema: {
        operationId: 'getCourse',
        tags: ['courses'],
        summary: 'One course (by id or slug) with its lessons, questions (never their answers) and the user’s progress',
        params: CourseParamsSchema,
        response: { 200: CourseDetailResponseSchema, ...readErrors },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => courses.getCourseDetail(request.user.id, request.params.courseId),
  )

  app.post(
    '/api/courses/:courseId/enroll',
    {
      schema: {
        operationId: 'enrollInCourse',
        tags: ['courses'],
        summary:
          'Enroll: a free course at once; a premium one through an embedded Stripe Checkout Session (the webhook enrolls), or at once in payment testing mode; 403 EMAIL_NOT_CONFIRMED until the email is confirmed',
        params: CourseParamsSchema,
        response: { 200: EnrollResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: ENROLL_LIMIT },
    },
    async (request) => courses.enroll(checkoutUser(request.user), request.params.courseId),
  )

  app.post(
    '/api/lessons/:lessonId/complete',
    {
      schema: {
        operationId: 'completeLesson',
        tags: ['courses'],
        summary: 'Mark a lesson complete (once; a second time changes nothing) and store the course progress',
        params: LessonParamsSchema,
        response: { 200: CompleteLessonResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PROGRESS_LIMIT },
    },
    async (request) => ({ ...(await courses.completeLesson(request.user.id, request.params.lessonId)), completed: true as const }),
  )

  app.post(
    '/api/lessons/:lessonId/open',
    {
      schema: {
        operationId: 'recordLessonOpened',
        tags: ['courses'],
        summary: 'Remember the lesson the user opened, so Continue Learning resumes there',
        params: LessonParamsSchema,
        response: { 204: z.undefined(), ...writeErrors },
      },
      config: { auth: 'session', rateLimit: PROGRESS_LIMIT },
    },
    async (request, reply) => {
      await courses.openLesson(request.user.id, request.params.lessonId)
      return reply.code(204).send()
    },
  )

  app.post(
    '/api/quizzes/:quizId/answer',
    {
      schema: {
        operationId: 'answerQuiz',
        tags: ['courses'],
        summary: 'Answer a quiz question: graded on the server, the attempt stored, right or wrong returned',
        params: QuizParamsSchema,
        body: QuizAnswerBodySchema,
        response: { 200: QuizAnswerResponseSchema, ...writeErrors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: ANSWER_LIMIT },
    },
    async (request) => courses.answerQuiz(request.user.id, request.params.quizId, request.body.answer),
  )
}

export default coursesRoutes
