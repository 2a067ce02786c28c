/**
 * The one list of the signed-in navigation (docs/decisions/048). Every signed-in page shows these
 * links, in this order, in the header bar (from 768 px) and in the menu drawer (phones, small tablets).
 * Adding a page to the navigation is one line here: its path, its label, its icon and who may
 * open it.
 */
import {
  ChartColumnIcon,
  CreditCardIcon,
  ChartLineIcon,
  CircleUserRoundIcon,
  GraduationCapIcon,
  LifeBuoyIcon,
  LayoutDashboardIcon,
  MessageCircleIcon,
  type LucideIcon,
} from 'lucide-react'
import type { LinkProps } from '@tanstack/react-router'
import type { SessionUser } from '#web/features/auth/api'
import { isPaid } from '#web/features/auth/guards'

/**
 * A route without path parameters (the navigation links to whole pages), from the router's
 * registered types: absolute paths only, no `.` or `..`.
 */
type PagePath = Extract<Exclude<NonNullable<LinkProps['to']>, `${string}$${string}`>, `/${string}`>

/**
 * Who sees a link: only what they may open, so no link bounces to /auth or /payment.
 * `paid`: the guarded paid screens; `signed-in`: any signed-in person; `unpaid`: signed in
 * without a completed payment (the plans, their way in).
 */
export type NavAudience = 'paid' | 'signed-in' | 'unpaid'

export type NavItem = {
  to: PagePath
  label: string
  icon: LucideIcon
  audience: NavAudience
  /** Other paths that show this same page: the link is the current page there too. */
  samePage?: readonly string[]
  /** Paths under which a page belongs to this link's section (aria-current="true"). */
  section?: readonly string[]
}

/** @public (the navigation's unit test reads the list) */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/dashboard', label: 'Dashboard', icon: LayoutDashboardIcon, audience: 'paid', samePage: ['/home'], section: ['/calls', '/goal-intake'] },
  { to: '/chat', label: 'Coach', icon: MessageCircleIcon, audience: 'paid' },
  { to: '/courses', label: 'Courses', icon: GraduationCapIcon, audience: 'signed-in', section: ['/courses'] },
  { to: '/reports', label: 'Reports', icon: ChartColumnIcon, audience: 'paid', section: ['/reports'] },
  { to: '/progress', label: 'Progress', icon: ChartLineIcon, audience: 'paid' },
  { to: '/payment', label: 'Plans', icon: CreditCardIcon, audience: 'unpaid' },
  { to: '/account', label: 'Account', icon: CircleUserRoundIcon, audience: 'signed-in' },
  { to: '/help', label: 'Help', icon: LifeBuoyIcon, audience: 'signed-in', section: ['/help'] },
]

/** The links this person may open, in the list's order. */
export function navItemsFor(user: SessionUser, items: readonly NavItem[] = NAV_ITEMS): NavItem[] {
  const paid = isPaid(user)
  return items.filter((item) => (item.audience === 'paid' ? paid : item.audience === 'unpaid' ? !paid : true))
}

/** Without a trailing slash (the router answers /courses/ as /courses). */
export const normalizePath = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path)

const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)

/**
 * The link's aria-current at `pathname`: 'page' on the page itself (or a path showing the same
 * page), 'true' on a page inside its section (a course, a call), otherwise none.
 */
export function currentState(item: NavItem, pathname: string): 'page' | 'true' | undefined {
  const path = normalizePath(pathname)
  if (path === item.to || item.samePage?.includes(path)) return 'page'
  if (item.section?.some((prefix) => within(path, prefix))) return 'true'
  return undefined
}
