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

const patterns = BROWSER_ROUTES.map(
  (route) => new RegExp(`^${route.replace(/\$[A-Za-z]+/g, '[^/]+')}/?$`),
)

/** Whether a path (without query) is one of the app's screens. */
export function isBrowserRoute(path: string): boolean {
  return patterns.some((pattern) => pattern.test(path))
}
