import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function CoursePage({ courseId }: { courseId: string }) {
  return (
    <ComingSoonPage title="Course details" purpose="The lessons of one course and your progress through them.">
      <p className="text-muted-foreground">
        Course ID: <code className="rounded bg-muted px-1.5 py-0.5 font-mono text-sm text-foreground">{courseId}</code>
      </p>
    </ComingSoonPage>
  )
}
