/**
 * Two-factor sign-in in the browser tests (docs/decisions/072): the codes an authenticator app
 * would show, on the real clock (the e2e servers run on it). A code is good once: the server
 * accepts the current 30-second step and the ones either side, each only after the last one used.
 * `nextCode` hands out the current step's code, then the next step's; a third within one step
 * cannot be had without waiting for the clock, so it throws (use a recovery code instead).
 */
import { generateHOTP } from '@oslojs/otp'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import type { APIRequestContext } from '@playwright/test'
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '#common/two-factor'

export type TwoFactorKey = { key: Uint8Array; lastStep: number | null }

/** The key of the set-up's text (base32 in groups of four, as the account page shows it). */
export function keyOfSecret(secret: string): TwoFactorKey {
  return { key: decodeBase32IgnorePadding(secret.replace(/\s/g, '')), lastStep: null }
}

const stepNow = () => Math.floor(Date.now() / (TOTP_PERIOD_SECONDS * 1000))

/** The next code the server will take from this key: the current step's, or the one after the last used. */
export function nextCode(holder: TwoFactorKey): string {
  const step = Math.max(stepNow(), (holder.lastStep ?? -Infinity) + 1)
  if (step > stepNow() + 1) throw new Error('both codes of this 30-second window are used: use a recovery code, or sign in again in the next window')
  holder.lastStep = step
  return generateHOTP(holder.key, BigInt(step), TOTP_DIGITS)
}

/**
 * Turns two-factor sign-in on through the API, from a context signed in with `password` (the
 * page's or a request context of its own): its key (the code that turned it on counted as used)
 * and the recovery codes.
 */
export async function turnOnTwoFactorViaApi(request: APIRequestContext, origin: string, password: string): Promise<{ key: TwoFactorKey; recoveryCodes: string[] }> {
  const setup = await request.post(`${origin}/api/account/two-factor/setup`, { headers: { origin }, data: { currentPassword: password } })
  if (setup.status() !== 200) throw new Error(`two-factor set-up failed: ${setup.status()} ${await setup.text()}`)
  const key = keyOfSecret(((await setup.json()) as { secret: string }).secret)
  const enabled = await request.post(`${origin}/api/account/two-factor`, { headers: { origin }, data: { code: nextCode(key) } })
  if (enabled.status() !== 200) throw new Error(`two-factor sign-in was not turned on: ${enabled.status()} ${await enabled.text()}`)
  return { key, recoveryCodes: ((await enabled.json()) as { recoveryCodes: string[] }).recoveryCodes }
}

/** Six digits the server will not take from this key now (none of the codes of the steps it accepts). */
export function wrongCode(holder: TwoFactorKey): string {
  const now = stepNow()
  const accepted = new Set([now - 1, now, now + 1, now + 2].map((step) => generateHOTP(holder.key, BigInt(step), TOTP_DIGITS)))
  return ['000000', '111111', '222222'].find((code) => !accepted.has(code))!
}
