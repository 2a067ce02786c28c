/**
 * The staff pages' guards (docs/decisions/072). Every staff page asks the server (GET
 * /api/staff/me, through the query cache):
 * - not staff (a member): the not-found page, as the server's 404 says;
 * - staff without two-factor sign-in: sent to set it up (/account?setup=two-factor), and brought back;
 * - staff without the page's role: the page's error view (StaffAccessError) says it is for other roles.
 * A staff page is a route under `_authenticated` whose beforeLoad is `staffOnly(roles)`
 * (staff-only.ts, which loads this module when the page opens), and shows StaffAccessError when refused:
 *
 *   // web/src/routes/_authenticated/ops.tsx
 *   export const Route = createFileRoute('/_authenticated/ops')({
 *     beforeLoad: staffOnly(['operator']),
 *     errorComponent: StaffAccessError,
 *     component: OpsPage,
 *   })
 *
 * and adds its path to common/routes.ts's ADDED_ROUTES.
 *
 * A staff page's own API calls can meet the same refusals later (two-factor sign-in turned off in
 * another tab): `staffRefusalRedirect` says where that sends the person (see useStaffRefusal).
 */
import type { QueryClient } from '@tanstack/react-query'
import { notFound, redirect } from '@tanstack/react-router'
import type { StaffRole } from '#common/staff-roles'
import { isApiError } from '#web/lib/api-error'
import { staffMeQueryOptions, type StaffMe } from './api'

/** Where staff without two-factor sign-in go to set it up (the account page's set-up); they come back to `href` after. */
export function twoFactorSetupRedirect(href: string) {
  return { href: `/account?${new URLSearchParams({ setup: 'two-factor', returnTo: href }).toString()}#two-factor` } as const
}

/**
 * What a staff operation's refusal means for the page: `setup` (TWO_FACTOR_REQUIRED: set up
 * two-factor sign-in, then come back), `not-found` (the 404 the server gives anyone not staff), or
 * nothing (another failure, for the page to show).
 */
export function staffRefusal(error: unknown): 'setup' | 'not-found' | undefined {
  if (!isApiError(error)) return undefined
  if (error.is('TWO_FACTOR_REQUIRED')) return 'setup'
  if (error.status === 404 || error.is('NOT_FOUND')) return 'not-found'
  return undefined
}

/** The router's answer to a staff refusal at `href`: a redirect to the set-up, or the not-found page; otherwise the error itself. */
function staffRefusalRedirect(error: unknown, href: string): unknown {
  const refusal = staffRefusal(error)
  if (refusal === 'setup') return redirect(twoFactorSetupRedirect(href))
  if (refusal === 'not-found') return notFound()
  return error
}

/** The signed-in staff member, or the router's answer to the refusal (a redirect to the set-up, the not-found page). */
async function requireStaff(context: { queryClient: QueryClient }, href: string): Promise<StaffMe> {
  try {
    return await context.queryClient.fetchQuery(staffMeQueryOptions())
  } catch (error) {
    throw staffRefusalRedirect(error, href)
  }
}

/** Thrown by a staff page's guard for staff without its role; the page's error view (StaffAccessError) shows it. */
export class StaffRoleRequired extends Error {
  readonly roles: readonly StaffRole[]
  constructor(roles: readonly StaffRole[]) {
    super(`This page is for ${roles.join(' or ')} staff.`)
    this.name = 'StaffRoleRequired'
    this.roles = roles
  }
}

/**
 * A staff page's beforeLoad: the staff member with one of `roles` (null: any role), in the route's
 * context as `staff`; or the two-factor set-up (TWO_FACTOR_REQUIRED), the not-found page (not
 * staff), or StaffRoleRequired for the page's error view (StaffAccessError).
 */
export async function requireStaffRole(
  roles: readonly StaffRole[] | null,
  { context, location }: { context: { queryClient: QueryClient }; location: { href: string } },
): Promise<{ staff: StaffMe }> {
  const staff = await requireStaff(context, location.href)
  if (roles && !staff.roles.some((role) => roles.includes(role))) throw new StaffRoleRequired(roles)
  return { staff }
}
