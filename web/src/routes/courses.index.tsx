import { createFileRoute } from '@tanstack/react-router'
import { prefetchSession } from '#web/features/auth/session'
import { CoursesPage } from '#web/features/courses/courses-page'

// Signed in only, but outside _authenticated: signed out, the catalogue shows its own
// 'Course Platform … Go to Login' view instead of a redirect (spec 2 §2).
export const Route = createFileRoute('/courses/')({
  loader: prefetchSession,
  component: CoursesPage,
})
