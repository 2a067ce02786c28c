/**
 * Two-factor sign-in's codes (docs/decisions/072), on @oslojs/otp as the Lucia guide's two-factor
 * example uses it, but on the app's Clock: a TOTP (RFC 6238) is the HOTP of the 30-second step the
 * clock is in, so the step is computed here and the HOTP checked for it (the library's TOTP
 * functions read Date.now()). A code is accepted for the step before and after too (a phone's
 * clock a little off, a code typed as it changed), and only for a step after the last one used, so
 * a code is good once.
 */
import { randomBytes } from 'node:crypto'
import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp'
import { encodeBase32NoPadding, encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'
import { renderSVG } from 'uqr'
import { RECOVERY_CODE_COUNT, RECOVERY_CODE_LENGTH, TOTP_DIGITS, TOTP_ISSUER, TOTP_PERIOD_SECONDS } from '#common/two-factor'
import { hashSecret } from './tokens'

/** 20 random bytes (160 bits), RFC 4226's recommended key length for HMAC-SHA-1. */
export const newTotpKey = () => new Uint8Array(randomBytes(20))

/** The 30-second step an instant falls in. */
const totpStep = (at: Date) => Math.floor(at.getTime() / (TOTP_PERIOD_SECONDS * 1000))

/**
 * The step whose code `code` is, among the one `now` is in and its two neighbours, if it is after
 * `lastUsedStep`; null otherwise (wrong, too old, or used already).
 */
export function acceptedTotpStep(key: Uint8Array, code: string, now: Date, lastUsedStep: number | null): number | null {
  const current = totpStep(now)
  for (const step of [current - 1, current, current + 1]) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue
    if (verifyHOTP(key, BigInt(step), TOTP_DIGITS, code)) return step
  }
  return null
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export const totpKeyUri = (accountName: string, key: Uint8Array) => createTOTPKeyURI(TOTP_ISSUER, accountName, key, TOTP_PERIOD_SECONDS, TOTP_DIGITS)

/** The key as typed into an app by hand: base32 in groups of four. */
export const totpSecretText = (key: Uint8Array) => encodeBase32NoPadding(key).replace(/(.{4})(?=.)/g, '$1 ')

/** The QR code of the URI, as an SVG document (a quiet zone of four modules, as the standard asks). */
export const qrCodeSvg = (uri: string) => renderSVG(uri, { border: 4, pixelSize: 6 })

/** RECOVERY_CODE_COUNT new recovery codes: 10 characters of lower-case base32 each (50 bits). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => encodeBase32LowerCaseNoPadding(new Uint8Array(randomBytes(7))).slice(0, RECOVERY_CODE_LENGTH))
}

/** A recovery code's stored form: the SHA-256 of the user's id and the code, so equal codes of two people never share a hash. */
export const recoveryCodeHash = (userId: string, code: string) => hashSecret(`${userId}:recovery:${code}`)
