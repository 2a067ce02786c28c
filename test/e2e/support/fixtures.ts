import { test as base, expect } from '@playwright/test'

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
