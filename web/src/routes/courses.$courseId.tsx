import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { CoursePage } from '../features/courses/course-page'

export const Route = createFileRoute('/courses/$courseId')({
  loader: prefetchSession,
  component: CourseRoute,
})

function CourseRoute() {
  const { courseId } = Route.useParams()
  return (
    <ProtectedRoute access="signed-in">
      <CoursePage courseId={courseId} />
    </ProtectedRoute>
  )
}
