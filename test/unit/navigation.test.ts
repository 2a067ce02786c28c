import { describe, expect, it } from 'vitest'
import type { SessionUser } from '#common/auth'

// The web module is loaded by a computed path: the server's type check (no DOM types) must not
// follow it into the web app. Its interface, as this test uses it:
type NavItem = { to: string; label: string; audience: 'paid' | 'signed-in' | 'unpaid'; samePage?: readonly string[]; section?: readonly string[] }
type NavItems = {
  NAV_ITEMS: readonly NavItem[]
  navItemsFor(user: SessionUser, items?: readonly NavItem[]): NavItem[]
  currentState(item: NavItem, pathname: string): 'page' | 'true' | undefined
}
const webModule = (path: string) => import(/* @vite-ignore */ new URL(`../../web/src/features/${path}`, import.meta.url).href)
const { NAV_ITEMS, navItemsFor, currentState } = (await webModule('navigation/nav-items.ts')) as NavItems

const user = (overrides: Partial<SessionUser> = {}): SessionUser => ({
  id: 'u1',
  email: 'jordan@example.com',
  fullName: 'Jordan Rivera',
  phoneNumber: '2025234567',
  emailConfirmed: true,
  hasSubscription: false,
  hasCompletedPayment: false,
  hasOptedIn: false,
  subscriptionTier: null,
  subscriptionEnd: null,
  partnerProgram: 'GENERAL',
  ...overrides,
})

const item = (label: string): NavItem => {
  const found = NAV_ITEMS.find((candidate) => candidate.label === label)
  if (!found) throw new Error(`no navigation item ${label}`)
  return found
}

/** The link each path marks, and how: 'Dashboard=page', 'Courses=true', or '' for none. */
const marked = (pathname: string) =>
  NAV_ITEMS.flatMap((candidate) => {
    const state = currentState(candidate, pathname)
    return state ? [`${candidate.label}=${state}`] : []
  }).join(' ')

describe('the signed-in navigation', () => {
  it('shows a paid member Dashboard, Coach, Courses, Reports, Progress, Account and Help, in that order', () => {
    expect(navItemsFor(user({ hasCompletedPayment: true, hasSubscription: true })).map((link) => [link.label, link.to])).toEqual([
      ['Dashboard', '/dashboard'],
      ['Coach', '/chat'],
      ['Courses', '/courses'],
      ['Reports', '/reports'],
      ['Progress', '/progress'],
      ['Account', '/account'],
      ['Help', '/help'],
    ])
  })

  it('shows someone who has not paid only what they may open: Courses, the plans, the account and Help, never a link that bounces to /payment', () => {
    expect(navItemsFor(user()).map((link) => [link.label, link.to])).toEqual([
      ['Courses', '/courses'],
      ['Plans', '/payment'],
      ['Account', '/account'],
      ['Help', '/help'],
    ])
  })

  it('decides by the one paid rule (hasCompletedPayment), as the guards do', () => {
    // A subscription flag alone is not what the guard checks (web/src/features/auth/guards.ts).
    expect(navItemsFor(user({ hasSubscription: true })).map((link) => link.label)).toEqual(['Courses', 'Plans', 'Account', 'Help'])
    expect(navItemsFor(user({ hasCompletedPayment: true })).map((link) => link.label)).toEqual(['Dashboard', 'Coach', 'Courses', 'Reports', 'Progress', 'Account', 'Help'])
  })

  it('takes a new page as one more item of the list', () => {
    const diagnostics: NavItem = { ...item('Dashboard'), to: '/debug/edge-functions', label: 'Diagnostics', audience: 'signed-in', samePage: [], section: [] }
    expect(navItemsFor(user({ hasCompletedPayment: true }), [...NAV_ITEMS, diagnostics]).map((link) => link.label)).toEqual(['Dashboard', 'Coach', 'Courses', 'Reports', 'Progress', 'Account', 'Help', 'Diagnostics'])
    expect(navItemsFor(user(), [...NAV_ITEMS, diagnostics]).map((link) => link.label)).toEqual(['Courses', 'Plans', 'Account', 'Help', 'Diagnostics'])
  })

  it('marks the current page with aria-current="page", and a page inside a section with "true"', () => {
    expect(marked('/dashboard')).toBe('Dashboard=page')
    // /home shows the same dashboard.
    expect(marked('/home')).toBe('Dashboard=page')
    expect(marked('/chat')).toBe('Coach=page')
    expect(marked('/courses')).toBe('Courses=page')
    expect(marked('/courses/')).toBe('Courses=page')
    expect(marked('/payment')).toBe('Plans=page')
    expect(marked('/progress')).toBe('Progress=page')
    expect(marked('/account')).toBe('Account=page')
    expect(marked('/courses/6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11')).toBe('Courses=true')
    expect(marked('/calls/schedule')).toBe('Dashboard=true')
    expect(marked('/goal-intake')).toBe('Dashboard=true')
  })

  it('marks nothing elsewhere, and never a path that only starts with the same letters', () => {
    for (const path of ['/opt-in', '/debug/edge-functions', '/', '/coursesx', '/chat/extra', '/homework', '/dashboards']) expect(marked(path), path).toBe('')
    expect(currentState(item('Courses'), '/course')).toBeUndefined()
  })
})
