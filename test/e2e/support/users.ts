import type { Page } from '@playwright/test'
import type { PlanId } from '#common/plans'
import { uniqueEmail } from './fixtures'
import { linkIn, tokenOf, waitForEmail } from './mail'
import { sharedServerLog, waitForLoggedCode } from './server-log'

export type TestUser = { email: string; password: string; fullName: string }

/**
 * Follows the confirmation email `email` was sent (through the e2e mail sink) by posting its token,
 * from the page's own context, to the server at `origin` (the suite's server unless given).
 */
export async function confirmEmailViaApi(page: Page, email: string, origin = process.env.E2E_BASE_URL): Promise<void> {
  if (!origin) throw new Error('E2E_BASE_URL is not set: run the browser tests through playwright.config.ts')
  const link = linkIn(await waitForEmail(email, /^Confirm your email for Momentum Coach$/))
  const token = tokenOf(link)
  const confirmed = await page.request.post(`${origin}/api/auth/confirm-email`, { headers: { origin }, data: { token } })
  if (confirmed.status() !== 200) throw new Error(`email confirmation failed: ${confirmed.status()} ${await confirmed.text()}`)
}

const DEFAULT_PHONE = '2025234567'

/**
 * Proves the signed-in person's number (ten digits) as someone running the server without Twilio
 * does: asks for the code, reads it from the server's log, enters it. Nothing is called or texted
 * to a number until it is proven.
 */
export async function verifyNumberViaApi(page: Page, phoneNumber: string, options: { origin?: string; logFile?: string } = {}): Promise<void> {
  const origin = options.origin ?? process.env.E2E_BASE_URL
  if (!origin) throw new Error('E2E_BASE_URL is not set: run the browser tests through playwright.config.ts')
  const asked = await page.request.post(`${origin}/api/account/phone/verification`, { headers: { origin } })
  if (asked.status() !== 202) throw new Error(`no verification code was sent: ${asked.status()} ${await asked.text()}`)
  const code = await waitForLoggedCode(options.logFile ?? sharedServerLog(), phoneNumber)
  const confirmed = await page.request.post(`${origin}/api/account/phone/verification/confirm`, { headers: { origin }, data: { code } })
  if (confirmed.status() !== 200) throw new Error(`the number was not verified: ${confirmed.status()} ${await confirmed.text()}`)
}

/**
 * Signs a new user up through the API from the page's own context (so the browser holds the
 * session cookie), optionally with the email confirmed and paid through testing mode (which the
 * server allows only for a confirmed email, so `paid` confirms it). For tests whose subject is
 * not sign-up. `origin` names another server than the suite's (a spec's own).
 */
export async function signUpViaApi(
  page: Page,
  options: {
    paid?: PlanId
    confirmed?: boolean
    fullName?: string
    partnerProgram?: string
    origin?: string
    phoneNumber?: string
    /** Prove the number with the code the server wrote to `logFile` (needs a confirmed email, so it confirms it). */
    verified?: boolean
    /** The server's log, when it is not the suite's shared server. */
    logFile?: string
  } = {},
): Promise<TestUser> {
  const origin = options.origin ?? process.env.E2E_BASE_URL
  if (!origin) throw new Error('E2E_BASE_URL is not set: run the browser tests through playwright.config.ts')
  const user = { email: uniqueEmail(), password: 'steady-maple-lantern-42', fullName: options.fullName ?? 'Jordan Rivera' }
  const signup = await page.request.post(`${origin}/api/auth/signup`, {
    headers: { origin },
    data: {
      fullName: user.fullName,
      email: user.email,
      phoneNumber: options.phoneNumber ?? DEFAULT_PHONE,
      password: user.password,
      confirmPassword: user.password,
      communicationConsent: true,
      termsAccepted: true,
      ...(options.partnerProgram ? { partnerProgram: options.partnerProgram } : {}),
    },
  })
  if (signup.status() !== 201) throw new Error(`sign-up failed: ${signup.status()} ${await signup.text()}`)
  if (options.confirmed ?? Boolean(options.paid || options.verified)) await confirmEmailViaApi(page, user.email, origin)
  if (options.verified) await verifyNumberViaApi(page, options.phoneNumber ?? DEFAULT_PHONE, { origin, logFile: options.logFile })
  if (options.paid) {
    const paid = await page.request.post(`${origin}/api/billing/testing-activation`, { headers: { origin }, data: { plan: options.paid } })
    if (paid.status() !== 200) throw new Error(`testing activation failed: ${paid.status()} ${await paid.text()}`)
  }
  return user
}
