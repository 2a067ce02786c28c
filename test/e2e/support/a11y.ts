import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'

/** Axe with the WCAG 2 A and AA rules; only the serious and critical violations, once nothing is mid-animation. */
export async function seriousA11yViolations(page: Page) {
  // Nothing may be mid-animation (a drawer sliding, a toast fading) while colours are measured, and
  // nothing may start in the next two frames either (a second toast arriving restacks the first).
  const settled = () =>
    new Promise<boolean>((resolve) => {
      const still = () => document.getAnimations().every((animation) => animation.playState !== 'running')
      if (!still()) return resolve(false)
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(still())))
    })
  await page.waitForFunction(settled)
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}
