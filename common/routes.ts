/** The browser route map of spec 1 §2 and spec 2 §2 (the server answers 404 for anything else). */
export const BROWSER_ROUTES = [
  '/',
  '/splash',
  '/auth',
  '/payment',
  '/opt-in',
  '/goal-intake',
  '/dashboard',
  '/home',
  '/chat',
  '/courses',
  '/courses/$courseId',
  '/debug/edge-functions',
] as const

/**
 * Screens issues added beyond the spec's route map (they load directly by URL with a 200 too): the
 * weekly reports and one week's report, the report email's unsubscribe page, the progress charts,
 * one call's details, the call schedule, the account page, the staff pages, and Help with a support request's page. A unit test checks this list against the web's routes.
 */
const ADDED_ROUTES = ['/reports', '/reports/$week', '/unsubscribe', '/progress', '/calls/$callId', '/calls/schedule', '/account', '/staff', '/ops', '/help', '/help/$ticketId', '/support', '/coach', '/messages', '/goal-templates', '/sessions', '/memory'] as const

const patterns = [...BROWSER_ROUTES, ...ADDED_ROUTES].map(
  (route) => new RegExp(`^${route.replace(/\$[A-Za-z]+/g, '[^/]+')}/?$`),
)

/** Whether a path (without query) is one of the app's screens. */
export function isBrowserRoute(path: string): boolean {
  return patterns.some((pattern) => pattern.test(path))
}
