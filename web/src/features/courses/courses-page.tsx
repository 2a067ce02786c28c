import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { BookOpenIcon, LogInIcon, RefreshCwIcon } from 'lucide-react'
import { useEffect } from 'react'
import { formatCoursePrice, type CourseSummary } from '#common/courses'
import { PageShell } from '#web/features/navigation/page-shell'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { toast } from '#web/lib/toast'
import { SessionGate } from '#web/features/auth/components/session-gate'
import { catalogueQueryOptions } from './api'
import {
  CategoryBadge,
  CourseProgress,
  CourseThumbnail,
  isCourseCompleted,
  lessonSummary,
  PremiumBadge,
  PriceTag,
} from './components'
import { useEnroll } from './use-enroll'

/** The platform's name: the catalogue's heading, signed in or out (spec 2 §2). */
const PLATFORM_HEADING = 'Course Platform'

/**
 * /courses: signed out, the 'Course Platform' view with 'Go to Login'; signed in, the
 * catalogue. The session comes from the server (GET /api/me), never from a client-side flag.
 */
export function CoursesPage() {
  return <SessionGate signedOut={<CoursesSignedOut />}>{() => <CourseCatalogue />}</SessionGate>
}

/** What a logged-out visitor sees at /courses. */
function CoursesSignedOut() {
  useDocumentTitle('Courses')
  return (
    <PageShell mainClassName="flex items-center justify-center px-4 py-16">
      <Card className="w-full max-w-md text-center">
        <CardHeader className="items-center">
          <BookOpenIcon className="mb-2 size-10 text-primary" aria-hidden="true" />
          <h1 className="text-2xl font-bold tracking-tight">{PLATFORM_HEADING}</h1>
          <CardDescription className="text-base">Please log in to access courses.</CardDescription>
        </CardHeader>
        <CardFooter className="justify-center">
          <Button asChild size="lg">
            <Link to="/auth" search={{ returnTo: '/courses' }}>
              <LogInIcon aria-hidden="true" />
              Go to Login
            </Link>
          </Button>
        </CardFooter>
      </Card>
    </PageShell>
  )
}

function CourseCatalogue() {
  useDocumentTitle('Courses')
  const catalogue = useQuery(catalogueQueryOptions())
  const { enroll, pendingCourseId, confirmingId, checkoutDialog } = useEnroll()

  const loadError = catalogue.error
  useEffect(() => {
    if (loadError) void toast({ title: 'Failed to load courses', description: loadError.message, variant: 'destructive' })
  }, [loadError])

  const courses = catalogue.data ?? []
  const mine = courses.filter((course) => course.enrollment !== null)

  return (
    <PageShell mainClassName="px-4 py-10 sm:px-6 sm:py-12">
      <div className="mx-auto max-w-6xl">
        <header>
          <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">{PLATFORM_HEADING}</h1>
          <p className="mt-2 text-lg text-muted-foreground">
            Training for Momentum Coach members and partners: short lessons, videos and quizzes.
          </p>
        </header>

        {catalogue.isPending ? (
          <div className="flex justify-center py-16">
            <Spinner size="lg" label="Loading courses..." showLabel />
          </div>
        ) : catalogue.isError ? (
          <div role="alert" className="mt-10 flex flex-col items-start gap-3 rounded-lg border border-destructive/40 bg-destructive/5 p-5">
            <p className="font-medium">Failed to load courses</p>
            <Button variant="outline" onClick={() => void catalogue.refetch()} disabled={catalogue.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
          </div>
        ) : (
          <>
            {mine.length > 0 ? (
              <section aria-labelledby="my-courses-heading" className="mt-10">
                <h2 id="my-courses-heading" className="text-2xl font-semibold tracking-tight">
                  My Courses
                </h2>
                <ul className="mt-5 grid gap-6 sm:grid-cols-2 lg:grid-cols-3" aria-label="My Courses">
                  {mine.map((course) => (
                    <li key={course.id}>
                      <MyCourseCard course={course} />
                    </li>
                  ))}
                </ul>
              </section>
            ) : null}

            <section aria-labelledby="available-courses-heading" className="mt-12">
              <h2 id="available-courses-heading" className="text-2xl font-semibold tracking-tight">
                Available Courses
              </h2>
              {courses.length === 0 ? (
                <p className="mt-4 text-muted-foreground">No courses are available yet. Please check back soon.</p>
              ) : (
                <ul className="mt-5 grid gap-6 sm:grid-cols-2 lg:grid-cols-3" aria-label="Available Courses">
                  {courses.map((course) => (
                    <li key={course.id}>
                      <AvailableCourseCard
                        course={course}
                        pending={pendingCourseId === course.id}
                        confirming={confirmingId === course.id}
                        disabled={pendingCourseId !== null}
                        onEnroll={() => enroll(course)}
                      />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </div>
      {checkoutDialog}
    </PageShell>
  )
}

function MyCourseCard({ course }: { course: CourseSummary }) {
  const completed = isCourseCompleted(course)
  const progress = course.enrollment?.progressPercentage ?? 0
  return (
    <Card role="group" aria-label={course.title} className="h-full gap-4 overflow-hidden pt-0">
      <CourseThumbnail course={course} />
      <CardHeader className="gap-2">
        <div className="flex flex-wrap gap-2">
          <CategoryBadge category={course.category} />
          {course.isPremium ? <PremiumBadge /> : null}
        </div>
        <CardTitle>{course.title}</CardTitle>
      </CardHeader>
      <CardContent className="mt-auto">
        <CourseProgress value={progress} label={`${course.title} progress`} />
      </CardContent>
      <CardFooter>
        <Button asChild className="w-full" variant={completed ? 'outline' : 'default'}>
          <Link to="/courses/$courseId" params={{ courseId: course.id }}>
            {completed ? 'Review Course' : 'Continue Learning'}
          </Link>
        </Button>
      </CardFooter>
    </Card>
  )
}

function AvailableCourseCard({
  course,
  pending,
  confirming,
  disabled,
  onEnroll,
}: {
  course: CourseSummary
  pending: boolean
  confirming: boolean
  disabled: boolean
  onEnroll: () => void
}) {
  const enrolled = course.enrollment !== null
  return (
    <Card role="group" aria-label={course.title} className="h-full gap-4 overflow-hidden pt-0">
      <CourseThumbnail course={course} />
      <CardHeader className="gap-2">
        <div className="flex flex-wrap gap-2">
          <CategoryBadge category={course.category} />
          {course.isPremium ? <PremiumBadge /> : null}
        </div>
        <CardTitle>
          <Link
            to="/courses/$courseId"
            params={{ courseId: course.id }}
            className="rounded-sm hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            {course.title}
          </Link>
        </CardTitle>
        <CardDescription>{course.description}</CardDescription>
      </CardHeader>
      <CardContent className="mt-auto flex flex-col gap-2">
        <p className="text-sm text-muted-foreground">{lessonSummary(course.lessonCount, course.totalMinutes)}</p>
        {course.isPremium && course.priceCents !== null ? <PriceTag priceCents={course.priceCents} /> : null}
      </CardContent>
      <CardFooter>
        {enrolled ? (
          <Button asChild variant="outline" className="w-full">
            <Link to="/courses/$courseId" params={{ courseId: course.id }}>
              View Course
            </Link>
          </Button>
        ) : (
          <Button className="w-full" onClick={onEnroll} disabled={disabled || confirming}>
            {enrollLabel(course, pending, confirming)}
          </Button>
        )}
      </CardFooter>
    </Card>
  )
}

/** 'Enroll Now', 'Enroll - $49' for a premium course, 'Enrolling...' while the request runs. */
export function enrollLabel(course: Pick<CourseSummary, 'isPremium' | 'priceCents'>, pending: boolean, confirming = false): string {
  if (confirming) return 'Confirming your payment...'
  if (pending) return 'Enrolling...'
  if (course.isPremium && course.priceCents !== null) return `Enroll - ${formatCoursePrice(course.priceCents)}`
  return 'Enroll Now'
}
