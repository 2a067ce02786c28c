/**
 * After a client-side navigation to another page, focus moves to the new page's main heading (its
 * h1), so keyboard and screen-reader users start at the top of what they opened and hear its name
 * (docs/decisions/048). Not on the first load (the browser starts at the top, at the skip link), not
 * when only the search or the hash changes (a lesson, a wizard step, the skip link itself), and
 * never away from a control the person already moved to on the new page.
 */
import type { AnyRouter } from '@tanstack/react-router'

/** How long a page may take to show its heading (its data loading) before we stop waiting for it. */
const HEADING_WAIT_MS = 10_000

function findHeading(): HTMLElement | null {
  return document.querySelector<HTMLElement>('#main-content h1') ?? document.querySelector<HTMLElement>('main h1')
}

/**
 * Focuses the page's h1 once it is there (a page may show a loading state first). `startedFrom` is
 * what had focus when the navigation began: focus still there, or lost with the old page (the
 * body), is ours to move; anywhere else, the person put it there and it stays. Returns a stop.
 */
function focusHeadingWhenShown(startedFrom: Element | null): () => void {
  const tryFocus = (): boolean => {
    const heading = findHeading()
    if (!heading) return false
    const active = document.activeElement
    const untouched = !active || active === document.body || active === startedFrom
    if (untouched) {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1')
      // The router restores or resets the scroll position; focusing must not move it.
      heading.focus({ preventScroll: true })
    }
    return true
  }
  if (tryFocus()) return () => {}

  const observer = new MutationObserver(() => {
    if (tryFocus()) stop()
  })
  const timer = window.setTimeout(() => stop(), HEADING_WAIT_MS)
  function stop() {
    observer.disconnect()
    window.clearTimeout(timer)
  }
  observer.observe(document.body, { childList: true, subtree: true })
  return stop
}

/**
 * Moves focus to the new page's h1 after each client-side navigation between pages. Installed by
 * main.tsx after the first paint (the first load never moves focus, so it costs no first-load bytes).
 * Returns the uninstall.
 */
export function installRouteFocus(router: AnyRouter): () => void {
  let startedFrom: Element | null = null
  let stop: (() => void) | undefined
  const unsubscribeStart = router.subscribe('onBeforeNavigate', () => {
    startedFrom = document.activeElement
  })
  const unsubscribeResolved = router.subscribe('onResolved', (event) => {
    stop?.()
    stop = undefined
    // No fromLocation: the first load (and its redirects), which leaves focus to the browser.
    if (!event.fromLocation || !event.pathChanged) return
    stop = focusHeadingWhenShown(startedFrom)
  })
  return () => {
    unsubscribeStart()
    unsubscribeResolved()
    stop?.()
  }
}
