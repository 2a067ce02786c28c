import { test as base, expect, type Page } from '@playwright/test'

let counter = 0

/**
 * Each test speaks from its own client address (X-Forwarded-For, believed from the loopback
 * proxy), so the per-IP limits of one test never touch another.
 */
export const test = base.extend({
  extraHTTPHeaders: async ({}, use, testInfo) => {
    counter += 1
    const a = (testInfo.workerIndex % 200) + 1
    const b = Math.floor(counter / 250) % 250
    const c = (counter % 250) + 1
    await use({ 'x-forwarded-for': `10.${a}.${b}.${c}` })
  },
})

export { expect }

export const uniqueEmail = (label = 'person') => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`

/**
 * Opens a URL and waits until the app runs the page. A prerendered page (`/`, `/auth`:
 * docs/decisions/052) shows before its app has loaded, and until the app hydrates it its links
 * work but its buttons and tabs do nothing; a test that acts at once waits for this.
 */
export async function gotoReady(page: Page, url: string) {
  const response = await page.goto(url)
  await page.waitForFunction(() => {
    const first = document.querySelector('#root > *')
    return first !== null && Object.keys(first).some((key) => key.startsWith('__reactFiber'))
  })
  return response
}

/**
 * A US number of its own (ten digits, Washington DC's 202), for a test that proves it: codes are
 * limited per number whoever asks, so tests that each texted the same number would share a limit.
 */
export const uniquePhone = () => `20252${String(Math.floor(Math.random() * 100_000)).padStart(5, '0')}`
