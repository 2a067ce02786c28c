import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { CoursesPage } from '../features/courses/courses-page'

export const Route = createFileRoute('/courses/')({
  loader: prefetchSession,
  // Signed out, the catalogue shows its own 'Course Platform … Go to Login' view (spec 2 §2).
  component: () => (
    <ProtectedRoute access="signed-in" signedOut="screen">
      <CoursesPage />
    </ProtectedRoute>
  ),
})
