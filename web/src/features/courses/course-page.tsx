import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { ArrowLeftIcon, ArrowRightIcon, CheckCircle2Icon, CircleIcon, ClockIcon, PlayCircleIcon, RefreshCwIcon } from 'lucide-react'
import { useCallback, useEffect, useRef } from 'react'
import {
  CourseSearchSchema,
  type CompleteLessonResponse,
  type CourseDetailResponse,
  type Lesson,
} from '#common/courses'
import { PageShell } from '#web/features/navigation/page-shell'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { cn } from '#web/lib/utils'
import { completeLesson, courseKeys, courseQueryOptions, openLesson } from './api'
import { CategoryBadge, CourseProgress, CourseThumbnail, lessonSummary, PremiumBadge, PriceTag } from './components'
import { enrollLabel } from './courses-page'
import { LessonContent } from './lesson-content'
import { LessonVideo } from './lesson-video'
import { QuizQuestion } from './quiz-question'
import { useEnroll } from './use-enroll'

const LESSON_TOASTS = {
  completed: { title: 'Lesson completed!' },
  failed: { title: 'Failed to update lesson progress', variant: 'destructive' as const },
  loadFailed: { title: 'Failed to load lessons', variant: 'destructive' as const },
}

/**
 * /courses/$courseId: 'Course Not Found'; the overview with the enroll button before
 * enrolling; once enrolled, the progress card, the lesson list and the lesson panel. The selected
 * lesson lives in the URL (?lesson=), so a reload returns to it; without one, the lesson the user
 * last opened (so 'Continue Learning' resumes), else the first.
 */
export function CoursePage({ courseId }: { courseId: string }) {
  const course = useQuery(courseQueryOptions(courseId))
  const error = course.error
  const missing = isApiError(error) && (error.status === 404 || error.status === 400)

  useEffect(() => {
    if (error && !missing) void toast({ ...LESSON_TOASTS.loadFailed, description: error.message })
  }, [error, missing])

  if (course.isPending) {
    return (
      <CourseShell title="Loading course">
        <div className="flex justify-center py-24">
          <Spinner size="lg" label="Loading course..." showLabel />
        </div>
      </CourseShell>
    )
  }
  if (missing) return <CourseNotFound />
  if (course.isError) {
    return (
      <CourseShell title="Course">
        <div role="alert" className="mx-auto flex max-w-md flex-col items-center gap-4 py-16 text-center">
          <h1 className="text-2xl font-bold tracking-tight">Failed to load lessons</h1>
          <p className="text-muted-foreground">{course.error.message}</p>
          <div className="flex gap-3">
            <Button onClick={() => void course.refetch()} disabled={course.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
            <BackToCourses variant="outline" />
          </div>
        </div>
      </CourseShell>
    )
  }
  return <CourseLoaded courseRef={courseId} data={course.data} />
}

function CourseShell({ title, children }: { title: string; children: React.ReactNode }) {
  useDocumentTitle(title)
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-6xl">{children}</div>
    </PageShell>
  )
}

function BackToCourses({ variant = 'ghost' }: { variant?: 'ghost' | 'outline' }) {
  return (
    <Button asChild variant={variant} className={variant === 'ghost' ? '-ml-3' : undefined}>
      <Link to="/courses">
        <ArrowLeftIcon aria-hidden="true" />
        Back to Courses
      </Link>
    </Button>
  )
}

function CourseNotFound() {
  return (
    <CourseShell title="Course Not Found">
      <div className="mx-auto flex max-w-md flex-col items-center py-16 text-center">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Course Not Found</h1>
        <p className="mt-3 text-muted-foreground">The course you are looking for does not exist or is no longer available.</p>
        <div className="mt-8">
          <BackToCourses variant="outline" />
        </div>
      </div>
    </CourseShell>
  )
}

function CourseLoaded({ courseRef, data }: { courseRef: string; data: CourseDetailResponse }) {
  const search = CourseSearchSchema.parse(useSearch({ from: '/_authenticated/courses/$courseId' }))
  const navigate = useNavigate({ from: '/courses/$courseId' })
  const { enroll, pendingCourseId, confirmingId, confirmPayment, checkoutDialog } = useEnroll()
  const { course } = data

  // Back from Stripe (redirect-based payment methods): wait for the webhook's enrollment once.
  const returnedSession = search.session_id
  const handledReturn = useRef<string | null>(null)
  useEffect(() => {
    if (!returnedSession || handledReturn.current === returnedSession) return
    handledReturn.current = returnedSession
    void navigate({ search: (previous) => ({ ...previous, session_id: undefined }), replace: true })
    if (!course.enrollment) void confirmPayment(course.id)
  }, [returnedSession, course.enrollment, course.id, confirmPayment, navigate])

  return (
    <CourseShell title={course.title}>
      {course.enrollment ? (
        <CourseLearning courseRef={courseRef} data={data} selectedId={search.lesson} />
      ) : (
        <CourseOverview
          data={data}
          pending={pendingCourseId === course.id}
          confirming={confirmingId === course.id}
          onEnroll={() => enroll(course)}
        />
      )}
      {checkoutDialog}
    </CourseShell>
  )
}

function CourseOverview({
  data,
  pending,
  confirming,
  onEnroll,
}: {
  data: CourseDetailResponse
  pending: boolean
  confirming: boolean
  onEnroll: () => void
}) {
  const { course, lessons } = data
  return (
    <>
      <BackToCourses />
      <div className="mt-4 grid gap-8 lg:grid-cols-[1fr_22rem]">
        <div>
          <div className="flex flex-wrap gap-2">
            <CategoryBadge category={course.category} />
            {course.isPremium ? <PremiumBadge /> : null}
          </div>
          <h1 className="mt-3 text-3xl font-bold tracking-tight sm:text-4xl">{course.title}</h1>
          <p className="mt-4 text-lg text-muted-foreground">{course.description}</p>
          <p className="mt-3 text-sm text-muted-foreground">{lessonSummary(course.lessonCount, course.totalMinutes)}</p>

          <h2 className="mt-10 text-xl font-semibold">Course Content</h2>
          <ol className="mt-4 divide-y rounded-lg border bg-card" aria-label="Course lessons">
            {lessons.map((lesson, index) => (
              <li key={lesson.id} className="flex items-center gap-3 px-4 py-3">
                <span className="w-6 text-sm font-semibold text-muted-foreground tabular-nums">{index + 1}</span>
                <span className="flex-1 font-medium">{lesson.title}</span>
                {lesson.hasVideo ? <PlayCircleIcon className="size-4 text-muted-foreground" aria-label="Video" role="img" /> : null}
                {lesson.quizCount > 0 || lesson.lessonType === 'quiz' ? <Badge variant="outline">Quiz</Badge> : null}
                <span className="text-sm whitespace-nowrap text-muted-foreground">{lesson.durationMinutes} min</span>
              </li>
            ))}
          </ol>
        </div>
        <Card className="h-fit gap-4 overflow-hidden pt-0 lg:sticky lg:top-24">
          <CourseThumbnail course={course} />
          <CardContent className="flex flex-col gap-4">
            {course.isPremium && course.priceCents !== null ? <PriceTag priceCents={course.priceCents} /> : null}
            <Button size="lg" onClick={onEnroll} disabled={pending || confirming}>
              {enrollLabel(course, pending, confirming)}
            </Button>
            <p className="text-sm text-muted-foreground">
              {course.isPremium ? 'Pay once, keep access to every lesson and quiz.' : 'Free for every Momentum Coach member.'}
            </p>
          </CardContent>
        </Card>
      </div>
    </>
  )
}

function CourseLearning({ courseRef, data, selectedId }: { courseRef: string; data: CourseDetailResponse; selectedId: string | undefined }) {
  const queryClient = useQueryClient()
  const navigate = useNavigate({ from: '/courses/$courseId' })
  const { course, lessons, progress } = data
  const enrollment = course.enrollment!
  const selected =
    lessons.find((lesson) => lesson.id === selectedId) ?? lessons.find((lesson) => lesson.id === enrollment.lastLessonId) ?? lessons[0]
  const selectedIndex = selected ? lessons.indexOf(selected) : -1
  const next = selectedIndex >= 0 ? lessons[selectedIndex + 1] : undefined
  const panelHeading = useRef<HTMLHeadingElement>(null)

  // Remember the lesson on the server (so 'Continue Learning' resumes there) and in the cache.
  const recorded = useRef<string | null>(enrollment.lastLessonId)
  const selectedLessonId = selected?.id
  useEffect(() => {
    if (!selectedLessonId || recorded.current === selectedLessonId) return
    recorded.current = selectedLessonId
    openLesson(selectedLessonId).catch(() => {})
    queryClient.setQueryData<CourseDetailResponse>(courseKeys.detail(courseRef), (old) =>
      old?.course.enrollment ? { ...old, course: { ...old.course, enrollment: { ...old.course.enrollment, lastLessonId: selectedLessonId } } } : old,
    )
  }, [selectedLessonId, courseRef, queryClient])

  const selectLesson = useCallback(
    (lessonId: string) => {
      void navigate({ search: (previous) => ({ ...previous, lesson: lessonId }) }).then(() => {
        panelHeading.current?.focus({ preventScroll: true })
        panelHeading.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
      })
    },
    [navigate],
  )

  const complete = useMutation({
    mutationFn: (lessonId: string) => completeLesson(lessonId),
    onSuccess: (result: CompleteLessonResponse) => {
      void toast(LESSON_TOASTS.completed)
      queryClient.setQueryData<CourseDetailResponse>(courseKeys.detail(courseRef), (old) =>
        old
          ? {
              ...old,
              course: { ...old.course, enrollment: result.enrollment },
              progress: result.progress,
              lessons: old.lessons.map((lesson) => (lesson.id === result.lessonId ? { ...lesson, completed: true } : lesson)),
            }
          : old,
      )
      void queryClient.invalidateQueries({ queryKey: courseKeys.catalogue })
      void queryClient.invalidateQueries({ queryKey: courseKeys.detail(courseRef) })
    },
    onError: () => void toast(LESSON_TOASTS.failed),
  })

  return (
    <>
      <BackToCourses />
      <div className="mt-4 flex flex-col gap-6 lg:flex-row lg:items-end lg:justify-between">
        <div>
          <div className="flex flex-wrap gap-2">
            <CategoryBadge category={course.category} />
            {course.isPremium ? <PremiumBadge /> : null}
          </div>
          <h1 className="mt-3 text-3xl font-bold tracking-tight">{course.title}</h1>
        </div>
        <Card className="w-full gap-3 py-4 lg:max-w-sm" role="region" aria-labelledby="course-progress-heading">
          <CardHeader className="px-5">
            <CardTitle as="h2" id="course-progress-heading" className="text-base">
              Course Progress
            </CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-2 px-5">
            <p className="text-sm text-muted-foreground" data-testid="lessons-done">
              {progress.completedLessons} of {progress.totalLessons} lessons
            </p>
            <CourseProgress value={progress.percentage} label="Course progress" />
          </CardContent>
        </Card>
      </div>

      <div className="mt-8 grid gap-6 lg:grid-cols-[20rem_1fr]">
        <nav aria-labelledby="lessons-heading" className="h-fit rounded-xl border bg-card p-3 lg:sticky lg:top-24">
          <h2 id="lessons-heading" className="px-2 pt-1 pb-2 text-base font-semibold">
            Lessons
          </h2>
          <ol className="flex flex-col gap-1">
            {lessons.map((lesson, index) => (
              <li key={lesson.id}>
                <LessonButton lesson={lesson} number={index + 1} current={lesson.id === selected?.id} onSelect={selectLesson} />
              </li>
            ))}
          </ol>
        </nav>

        {selected ? (
          <LessonPanel
            key={selected.id}
            lesson={selected}
            number={selectedIndex + 1}
            total={lessons.length}
            courseRef={courseRef}
            headingRef={panelHeading}
            completing={complete.isPending && complete.variables === selected.id}
            onComplete={() => complete.mutate(selected.id)}
            next={next}
            onNext={next ? () => selectLesson(next.id) : undefined}
          />
        ) : (
          <p className="text-muted-foreground">This course has no lessons yet.</p>
        )}
      </div>
    </>
  )
}

function LessonButton({ lesson, number, current, onSelect }: { lesson: Lesson; number: number; current: boolean; onSelect: (id: string) => void }) {
  const hasQuiz = lesson.quizCount > 0 || lesson.lessonType === 'quiz'
  return (
    <button
      type="button"
      aria-current={current ? 'true' : undefined}
      onClick={() => onSelect(lesson.id)}
      className={cn(
        'flex w-full items-start gap-3 rounded-md px-2 py-2 text-left transition-colors hover:bg-secondary',
        'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
        current && 'bg-secondary text-secondary-foreground',
      )}
    >
      {lesson.completed ? (
        <CheckCircle2Icon className="mt-0.5 size-5 shrink-0 text-success" role="img" aria-label="Completed" />
      ) : (
        <CircleIcon className="mt-0.5 size-5 shrink-0 text-muted-foreground" role="img" aria-label="Not completed" />
      )}
      <span className="flex min-w-0 flex-1 flex-col">
        <span className="font-medium">
          <span className="sr-only">Lesson {number}: </span>
          {lesson.title}
        </span>
        <span className="mt-0.5 flex items-center gap-2 text-xs text-muted-foreground">
          <span>{lesson.durationMinutes} min</span>
          {hasQuiz ? (
            <Badge variant="outline" className="px-1.5 py-0 text-[0.7rem]">
              Quiz
            </Badge>
          ) : null}
        </span>
      </span>
    </button>
  )
}

function LessonPanel({
  lesson,
  number,
  total,
  courseRef,
  headingRef,
  completing,
  onComplete,
  next,
  onNext,
}: {
  lesson: Lesson
  number: number
  total: number
  courseRef: string
  headingRef: React.RefObject<HTMLHeadingElement | null>
  completing: boolean
  onComplete: () => void
  next: Lesson | undefined
  onNext: (() => void) | undefined
}) {
  return (
    <article aria-labelledby="lesson-title" className="flex min-w-0 flex-col gap-6 rounded-xl border bg-card p-5 sm:p-6">
      <header className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center gap-3">
          {lesson.completed ? (
            <Badge className="bg-success text-white">
              <CheckCircle2Icon aria-hidden="true" />
              Completed
            </Badge>
          ) : (
            <Badge variant="accent">In Progress</Badge>
          )}
          <span className="text-sm text-muted-foreground">
            Lesson {number} of {total}
          </span>
        </div>
        <h2 id="lesson-title" ref={headingRef} tabIndex={-1} className="text-2xl font-bold tracking-tight outline-none">
          {lesson.title}
        </h2>
      </header>

      {lesson.videoUrl ? <LessonVideo lesson={lesson} /> : null}
      {lesson.content ? <LessonContent markdown={lesson.content} /> : null}

      {lesson.quizzes.length > 0 ? (
        <section aria-labelledby="quiz-heading" className="flex flex-col gap-3">
          <h3 id="quiz-heading" className="text-lg font-semibold">
            Quiz
          </h3>
          {lesson.quizzes.map((quiz, index) => (
            <QuizQuestion key={quiz.id} quiz={quiz} number={index + 1} courseRef={courseRef} />
          ))}
        </section>
      ) : null}

      <footer className="flex flex-col gap-3 border-t pt-5 sm:flex-row sm:items-center sm:justify-between">
        <p className="flex items-center gap-2 text-sm text-muted-foreground">
          <ClockIcon className="size-4" aria-hidden="true" />
          {lesson.durationMinutes} min
        </p>
        <div className="flex flex-wrap gap-3">
          {lesson.completed ? (
            <p className="flex items-center gap-2 font-medium text-success">
              <CheckCircle2Icon className="size-5" aria-hidden="true" />
              You completed this lesson
            </p>
          ) : (
            <Button onClick={onComplete} disabled={completing}>
              {completing ? 'Saving...' : 'Mark as Complete'}
            </Button>
          )}
          {onNext && next ? (
            <Button variant="outline" onClick={onNext}>
              Next Lesson
              <ArrowRightIcon aria-hidden="true" />
            </Button>
          ) : null}
        </div>
      </footer>
    </article>
  )
}
