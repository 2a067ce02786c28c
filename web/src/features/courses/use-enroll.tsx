import { useMutation, useQueryClient } from '@tanstack/react-query'
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ReactNode } from 'react'
import type { CourseSummary } from '#common/courses'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { courseQueryOptions, enrollInCourse, invalidateCourses } from './api'

// Stripe's embedded checkout is loaded only when a premium course is bought in Stripe mode.
const CourseCheckoutDialog = lazy(() => import('./checkout-dialog'))

/** How long the page waits for the payment webhook to enroll the user after checkout completes. */
const CONFIRM_ATTEMPTS = 30
const CONFIRM_INTERVAL_MS = 2_000

const ENROLL_TOASTS = {
  success: { title: 'Successfully enrolled in course!' },
  testingMode: { title: 'Testing Mode Active', description: 'Course unlocked without payment for testing.' },
  loginRequired: { title: 'Please log in to enroll in courses', variant: 'destructive' as const },
  failed: (description: string) => ({ title: 'Failed to enroll in course', description, variant: 'destructive' as const }),
}

type Checkout = { course: Pick<CourseSummary, 'id' | 'title' | 'priceCents'>; clientSecret: string }

/**
 * Enrolling from the catalogue or the course page: a free course at once; a premium
 * one at once in testing mode ('Testing Mode Active'), or through Stripe's embedded checkout, after
 * which the payment webhook enrolls the user and this waits for it ('Confirming your payment...').
 */
export function useEnroll() {
  const queryClient = useQueryClient()
  const [checkout, setCheckout] = useState<Checkout | null>(null)
  const [confirmingId, setConfirmingId] = useState<string | null>(null)
  const cancelled = useRef(false)
  useEffect(() => {
    cancelled.current = false
    return () => {
      cancelled.current = true
    }
  }, [])

  const mutation = useMutation({
    mutationFn: (course: Pick<CourseSummary, 'id' | 'title' | 'priceCents'>) => enrollInCourse(course.id),
    onSuccess: async (result, course) => {
      if (result.outcome === 'checkout') {
        setCheckout({ course, clientSecret: result.clientSecret })
        return
      }
      void toast(result.source === 'testing' && !result.alreadyEnrolled ? ENROLL_TOASTS.testingMode : ENROLL_TOASTS.success)
      await invalidateCourses(queryClient)
    },
    onError: (error) => {
      if (isApiError(error) && error.status === 401) void toast(ENROLL_TOASTS.loginRequired)
      else void toast(ENROLL_TOASTS.failed(error.message))
    },
  })

  /** After a paid checkout (or the return from Stripe), waits until the webhook has enrolled the user. */
  const confirmPayment = useCallback(
    async (courseId: string) => {
      setConfirmingId(courseId)
      try {
        for (let attempt = 0; attempt < CONFIRM_ATTEMPTS && !cancelled.current; attempt += 1) {
          const detail = await queryClient.fetchQuery({ ...courseQueryOptions(courseId), staleTime: 0 }).catch(() => null)
          if (detail?.course.enrollment) {
            void toast(ENROLL_TOASTS.success)
            await invalidateCourses(queryClient)
            return
          }
          await new Promise((resolve) => window.setTimeout(resolve, CONFIRM_INTERVAL_MS))
        }
        if (!cancelled.current) {
          void toast({
            title: 'Payment received',
            description: 'We are still confirming it with the payment service. The course unlocks as soon as that is done; reload the page in a minute.',
          })
        }
      } finally {
        if (!cancelled.current) setConfirmingId(null)
      }
    },
    [queryClient],
  )

  const closeCheckout = useCallback(() => setCheckout(null), [])
  const checkoutCourseId = checkout?.course.id
  const completeCheckout = useCallback(() => {
    setCheckout(null)
    if (checkoutCourseId) void confirmPayment(checkoutCourseId)
  }, [checkoutCourseId, confirmPayment])

  const checkoutDialog: ReactNode = checkout ? (
    <Suspense fallback={null}>
      <CourseCheckoutDialog
        key={checkout.clientSecret}
        courseTitle={checkout.course.title}
        priceCents={checkout.course.priceCents}
        clientSecret={checkout.clientSecret}
        onClose={closeCheckout}
        onComplete={completeCheckout}
      />
    </Suspense>
  ) : null

  return {
    enroll: mutation.mutate,
    /** The course whose enrollment request is in flight (its button reads 'Enrolling...'). */
    pendingCourseId: mutation.isPending ? (mutation.variables?.id ?? null) : null,
    /** The course whose payment is being confirmed. */
    confirmingId,
    confirmPayment,
    checkoutDialog,
  }
}
