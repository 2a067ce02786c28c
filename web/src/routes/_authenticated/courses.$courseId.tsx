import { createFileRoute } from '@tanstack/react-router'
import { CoursePage } from '#web/features/courses/course-page'

export const Route = createFileRoute('/_authenticated/courses/$courseId')({
  component: CourseRoute,
})

function CourseRoute() {
  const { courseId } = Route.useParams()
  return <CoursePage courseId={courseId} />
}
