/**
 * The staff pages' guards (docs/decisions/072), for the pathless layout `_authenticated/_staff` and
 * the pages under it. Every staff page asks the server (GET /api/staff/me, through the query cache):
 * - not staff (a member): the not-found page, as the server's 404 says;
 * - staff without two-factor sign-in: sent to set it up (/account/two-factor), and brought back;
 * - staff without the page's role: the layout's error view says the page is for other roles.
 * Route options load with the entry chunk: this module stays free of zod and of the fetch client.
 *
 *   // web/src/routes/_authenticated/_staff/ops.tsx
 *   export const Route = createFileRoute('/_authenticated/_staff/ops')({
 *     beforeLoad: requireStaffRole('operator'),
 *     component: OpsPage,
 *   })
 *
 * A staff page's own API calls can meet the same refusals later (two-factor sign-in turned off in
 * another tab): `staffRefusalRedirect` says where that sends the person (see useStaffRefusal).
 */
import type { QueryClient } from '@tanstack/react-query'
import { notFound, redirect } from '@tanstack/react-router'
import type { StaffRole } from '#common/staff-roles'
import { isApiError } from '#web/lib/api-error'
import { staffMeQueryOptions, type StaffMe } from './api'

/** Where staff without two-factor sign-in go to set it up; they come back to `returnTo` after. */
export function twoFactorSetupRedirect(href: string) {
  return { to: '/account/two-factor', search: { returnTo: href } } as const
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
export function staffRefusalRedirect(error: unknown, href: string): unknown {
  const refusal = staffRefusal(error)
  if (refusal === 'setup') return redirect(twoFactorSetupRedirect(href))
  if (refusal === 'not-found') return notFound()
  return error
}

/** `_staff`'s beforeLoad: the staff member (roles, two-factor sign-in), or a redirect, or the not-found page. */
export async function requireStaff({ context, location }: { context: { queryClient: QueryClient }; location: { href: string } }): Promise<{ staff: StaffMe }> {
  try {
    return { staff: await context.queryClient.fetchQuery(staffMeQueryOptions()) }
  } catch (error) {
    throw staffRefusalRedirect(error, location.href)
  }
}

/** Thrown by a staff page's guard for staff without its role; the `_staff` layout's error view shows it. */
export class StaffRoleRequired extends Error {
  readonly roles: readonly StaffRole[]
  constructor(roles: readonly StaffRole[]) {
    super(`This page is for ${roles.join(' or ')} staff.`)
    this.name = 'StaffRoleRequired'
    this.roles = roles
  }
}

/** A staff page's beforeLoad: staff with one of `roles` (the layout has loaded the staff member). */
export function requireStaffRole(...roles: StaffRole[]) {
  return ({ context }: { context: { staff: StaffMe } }): void => {
    if (!context.staff.roles.some((role) => roles.includes(role))) throw new StaffRoleRequired(roles)
  }
}
