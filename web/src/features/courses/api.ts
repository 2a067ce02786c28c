/**
 * The course API calls, each response validated with the shared schema. This module is
 * only reached from the course screens' lazily loaded chunks, never from the entry chunk.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import {
  CatalogueResponseSchema,
  CompleteLessonResponseSchema,
  CourseDetailResponseSchema,
  EnrollResponseSchema,
  QuizAnswerResponseSchema,
  type CompleteLessonResponse,
  type CourseDetailResponse,
  type EnrollResponse,
  type QuizAnswerResponse,
} from '#common/courses'
import { api } from '#web/lib/api-client'

export const courseKeys = {
  all: ['courses'] as const,
  catalogue: ['courses', 'catalogue'] as const,
  detail: (ref: string) => ['courses', 'detail', ref] as const,
}

export function catalogueQueryOptions() {
  return queryOptions({
    queryKey: courseKeys.catalogue,
    queryFn: async ({ signal }) => (await api.get('/api/courses', CatalogueResponseSchema, { signal })).courses,
  })
}

export function courseQueryOptions(ref: string) {
  return queryOptions({
    queryKey: courseKeys.detail(ref),
    queryFn: ({ signal }): Promise<CourseDetailResponse> =>
      api.get(`/api/courses/${encodeURIComponent(ref)}`, CourseDetailResponseSchema, { signal }),
  })
}

export function enrollInCourse(courseId: string): Promise<EnrollResponse> {
  return api.post(`/api/courses/${encodeURIComponent(courseId)}/enroll`, undefined, EnrollResponseSchema)
}

export function completeLesson(lessonId: string): Promise<CompleteLessonResponse> {
  return api.post(`/api/lessons/${encodeURIComponent(lessonId)}/complete`, undefined, CompleteLessonResponseSchema)
}

export async function openLesson(lessonId: string): Promise<void> {
  await api.post(`/api/lessons/${encodeURIComponent(lessonId)}/open`, undefined, z.undefined())
}

export function answerQuiz(quizId: string, answer: string): Promise<QuizAnswerResponse> {
  return api.post(`/api/quizzes/${encodeURIComponent(quizId)}/answer`, { answer }, QuizAnswerResponseSchema)
}

/** After an enrollment or progress change, everything course-related is refetched. */
export function invalidateCourses(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: courseKeys.all })
}
