import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function CoursesPage() {
  return <ComingSoonPage title="Courses" purpose="Training courses with video lessons, quizzes and your progress." />
}
