import { GraduationCapIcon } from 'lucide-react'
import { COURSE_CATEGORY_LABELS, formatCoursePrice, type CourseSummary } from '#common/courses'
import type { CourseCategory } from '#common/domain'
import { Badge } from '#web/components/ui/badge'
import { Progress } from '#web/components/ui/progress'
import { cn } from '#web/lib/utils'

export function CategoryBadge({ category }: { category: CourseCategory }) {
  return <Badge variant="secondary">{COURSE_CATEGORY_LABELS[category]}</Badge>
}

export function PremiumBadge() {
  return <Badge variant="highlight">Premium</Badge>
}

/** The course's picture; decorative (the title is always next to it). */
export function CourseThumbnail({ course, className }: { course: Pick<CourseSummary, 'thumbnailUrl'>; className?: string }) {
  return (
    <div className={cn('aspect-video w-full overflow-hidden bg-secondary', className)}>
      {course.thumbnailUrl ? (
        <img src={course.thumbnailUrl} alt="" loading="lazy" decoding="async" className="size-full object-cover" />
      ) : (
        <div className="flex size-full items-center justify-center text-secondary-foreground">
          <GraduationCapIcon className="size-12" aria-hidden="true" />
        </div>
      )}
    </div>
  )
}

/** "$49 one-time" for a premium course. */
export function PriceTag({ priceCents }: { priceCents: number }) {
  return (
    <p className="flex items-baseline gap-1.5">
      <span className="text-xl font-bold">{formatCoursePrice(priceCents)}</span>
      <span className="text-sm text-muted-foreground">one-time</span>
    </p>
  )
}

/** A progress bar with its percentage, named for assistive technology. */
export function CourseProgress({ value, label, className }: { value: number; label: string; className?: string }) {
  return (
    <div className={cn('flex items-center gap-3', className)}>
      <Progress value={value} aria-label={label} className="flex-1" />
      <span className="min-w-10 text-right text-sm font-semibold tabular-nums">{value}%</span>
    </div>
  )
}

/** "6 lessons · 35 min" */
export function lessonSummary(lessonCount: number, totalMinutes: number): string {
  return `${lessonCount} ${lessonCount === 1 ? 'lesson' : 'lessons'} · ${totalMinutes} min`
}

/** Whether the user finished the course: the button reads 'Review Course' instead of 'Continue Learning'. */
export function isCourseCompleted(course: CourseSummary): boolean {
  return course.enrollment !== null && (course.enrollment.progressPercentage >= 100 || course.enrollment.completedAt !== null)
}
