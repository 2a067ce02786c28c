/**
 * Two-factor sign-in (docs/decisions/072): a time-based code from an authenticator app (TOTP, RFC
 * 6238: 6 digits every 30 seconds) or one of 10 single-use recovery codes. The rules and the words,
 * shared by the server's routes and the browser's forms.
 */
import { z } from 'zod'
import { PASSWORD_MAX } from './auth-constants'
import { text } from './text'

export const TOTP_DIGITS = 6
export const TOTP_PERIOD_SECONDS = 30
export const RECOVERY_CODE_COUNT = 10
/** A recovery code: this many characters of lower-case base32 (50 random bits), shown as two groups of five. */
export const RECOVERY_CODE_LENGTH = 10
/** How long a session may wait between the password and the code before it must start again. */
export const TWO_FACTOR_STEP_MINUTES = 15
/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Momentum Coach'

/** A code as typed, without the spaces and dashes people copy with it, lower-cased (a recovery code's letters). */
const normalizeTwoFactorCode = (value: string) => value.replace(/[\s-]/g, '').toLowerCase()

const TOTP_PATTERN = new RegExp(`^[0-9]{${TOTP_DIGITS}}$`)
const RECOVERY_PATTERN = new RegExp(`^[a-z2-7]{${RECOVERY_CODE_LENGTH}}$`)

/** Which kind of code a normalized code is (or neither). */
export function twoFactorCodeKind(code: string): 'totp' | 'recovery' | null {
  if (TOTP_PATTERN.test(code)) return 'totp'
  if (RECOVERY_PATTERN.test(code)) return 'recovery'
  return null
}

/** A recovery code as shown: two groups of five ("abcde-fghij"). */
export const formatRecoveryCode = (code: string) => `${code.slice(0, 5)}-${code.slice(5)}`

const CODE_REQUIRED = 'Enter the 6-digit code from your authenticator app, or a recovery code'

/** The code from the authenticator app, or a recovery code: either is accepted wherever a code is asked. */
const TwoFactorCodeSchema = text({ error: CODE_REQUIRED })
  .max(40, 'That is not a code: enter the 6 digits from your app, or a recovery code')
  .transform(normalizeTwoFactorCode)
  .refine((code) => code.length > 0, CODE_REQUIRED)
  .refine((code) => code.length === 0 || twoFactorCodeKind(code) !== null, 'That is not a code: enter the 6 digits from your app, or a recovery code')

/** The code from the authenticator app only (confirming the set-up, before recovery codes exist). */
const TotpCodeSchema = text({ error: 'Enter the 6-digit code from your authenticator app' })
  .max(20, `The code is ${TOTP_DIGITS} digits`)
  .transform(normalizeTwoFactorCode)
  .refine((code) => code.length > 0, 'Enter the 6-digit code from your authenticator app')
  .refine((code) => code.length === 0 || TOTP_PATTERN.test(code), `The code is ${TOTP_DIGITS} digits`)

const CurrentPasswordSchema = text({ error: 'Please enter your current password' })
  .min(1, 'Please enter your current password')
  .max(PASSWORD_MAX, 'Your current password is not correct.')

/** POST /api/auth/two-factor: the second step of signing in. */
export const TwoFactorSignInBodySchema = z.object({ code: TwoFactorCodeSchema })

/** POST /api/account/two-factor/setup: the current password first (turning it on could lock out the person). */
export const TwoFactorSetupBodySchema = z.object({ currentPassword: CurrentPasswordSchema })
export type TwoFactorSetupBody = z.input<typeof TwoFactorSetupBodySchema>

/** The new key, to scan or type into the authenticator app; it works once a code from it is confirmed. */
export const TwoFactorSetupResponseSchema = z.object({
  /** The key in base32, in groups of four, for typing in by hand. */
  secret: text(),
  /** The otpauth:// URI the QR code holds. */
  keyUri: text(),
  /** The QR code of keyUri, as an SVG document. */
  qrCodeSvg: text(),
})
export type TwoFactorSetup = z.infer<typeof TwoFactorSetupResponseSchema>

/** POST /api/account/two-factor: a code from the app confirms the set-up and turns it on. */
export const TwoFactorEnableBodySchema = z.object({ code: TotpCodeSchema })
export type TwoFactorEnableBody = z.input<typeof TwoFactorEnableBodySchema>

/** POST /api/account/two-factor/disable: the current password and a code. */
export const TwoFactorDisableBodySchema = z.object({ currentPassword: CurrentPasswordSchema, code: TwoFactorCodeSchema })
export type TwoFactorDisableBody = z.input<typeof TwoFactorDisableBodySchema>

/** POST /api/account/two-factor/recovery-codes: a code, then 10 new recovery codes (the old ones stop working). */
export const RecoveryCodesBodySchema = z.object({ code: TwoFactorCodeSchema })
export type RecoveryCodesBody = z.input<typeof RecoveryCodesBodySchema>

/** The recovery codes, shown once: the server keeps only their hashes. */
export const RecoveryCodesResponseSchema = z.object({
  recoveryCodes: z.array(text()).length(RECOVERY_CODE_COUNT),
  /** The other sessions signed out (turning it on signs out every other device). */
  signedOut: z.number().int().nonnegative(),
})
export type RecoveryCodes = z.infer<typeof RecoveryCodesResponseSchema>

/** GET /api/account/two-factor: whether it is on, since when, and the recovery codes left. */
export const TwoFactorStatusResponseSchema = z.object({
  enabled: z.boolean(),
  enabledAt: text().nullable(),
  recoveryCodesLeft: z.number().int().nonnegative(),
})
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusResponseSchema>

/** The code asked with a change of password or email when two-factor sign-in is on (absent when it is off). */
export const OptionalTwoFactorCodeSchema = TwoFactorCodeSchema.optional()
