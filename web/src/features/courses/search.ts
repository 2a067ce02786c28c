/**
 * The search parameters of /courses/$courseId: the selected lesson (so a reload returns to it) and,
 * after Stripe redirects back from a course payment, the checkout session. Route options end up in
 * the entry chunk, so this is plain TypeScript (zod there would add ~25 KB to every first load);
 * the course page checks the values again with the shared zod schema (CourseSearchSchema) and
 * against the course's own lessons.
 */
export type CourseSearch = {
  /** The selected lesson's id. */
  lesson?: string
  /** The Stripe Checkout Session id on the return from a payment. */
  session_id?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SESSION = /^cs_[A-Za-z0-9_]{1,200}$/

export function validateCourseSearch(search: Record<string, unknown>): CourseSearch {
  const result: CourseSearch = {}
  if (typeof search.lesson === 'string' && UUID.test(search.lesson)) result.lesson = search.lesson.toLowerCase()
  if (typeof search.session_id === 'string' && SESSION.test(search.session_id)) result.session_id = search.session_id
  return result
}
