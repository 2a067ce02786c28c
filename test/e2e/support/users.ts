import type { Page } from '@playwright/test'
import type { PlanId } from '#common/plans'
import { uniqueEmail } from './fixtures'

export type TestUser = { email: string; password: string; fullName: string }

/**
 * Signs a new user up through the API from the page's own context (so the browser holds the
 * session cookie), optionally paid through testing mode. For tests whose subject is not sign-up.
 */
export async function signUpViaApi(page: Page, options: { paid?: PlanId; fullName?: string; partnerProgram?: string } = {}): Promise<TestUser> {
  const origin = process.env.E2E_BASE_URL
  if (!origin) throw new Error('E2E_BASE_URL is not set: run the browser tests through playwright.config.ts')
  const user = { email: uniqueEmail(), password: 'steady-maple-lantern-42', fullName: options.fullName ?? 'Jordan Rivera' }
  const signup = await page.request.post('/api/auth/signup', {
    headers: { origin },
    data: {
      fullName: user.fullName,
      email: user.email,
      phoneNumber: '5551234567',
      password: user.password,
      confirmPassword: user.password,
      communicationConsent: true,
      termsAccepted: true,
      ...(options.partnerProgram ? { partnerProgram: options.partnerProgram } : {}),
    },
  })
  if (signup.status() !== 201) throw new Error(`sign-up failed: ${signup.status()} ${await signup.text()}`)
  if (options.paid) {
    const paid = await page.request.post('/api/billing/testing-activation', { headers: { origin }, data: { plan: options.paid } })
    if (paid.status() !== 200) throw new Error(`testing activation failed: ${paid.status()} ${await paid.text()}`)
  }
  return user
}
