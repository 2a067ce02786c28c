/**
 * The account page (issue 16, docs/decisions/050): the profile (name, email and phone changes that
 * wait for their confirmation), the password and the signed-in sessions. Shared by the server's
 * routes and the page's forms, so both apply the same rules and messages (sign-up's for the name,
 * the email, the phone and a new password).
 */
import { z } from 'zod'
import { EmailSchema, FullNameSchema, NewPasswordSchema, PhoneSchema, TokenSchema } from './auth'
import { PASSWORD_MAX } from './auth-constants'
import { text } from './text'
import { OptionalTwoFactorCodeSchema } from './two-factor'

/** A code texted to a new phone number: this many digits, valid this long, this many tries. */
export const PHONE_CODE_DIGITS = 6
export const PHONE_CODE_TTL_MINUTES = 10
export const PHONE_CODE_ATTEMPTS = 5
/** How long the link emailed to a new address works. */
export const EMAIL_CHANGE_TTL_HOURS = 24

const CurrentPasswordSchema = text({ error: 'Please enter your current password' })
  .min(1, 'Please enter your current password')
  .max(PASSWORD_MAX, 'Your current password is not correct.')

export const UpdateProfileBodySchema = z.object({ fullName: FullNameSchema })
export type UpdateProfileBody = z.input<typeof UpdateProfileBodySchema>

/**
 * A new email address: confirmed through a link sent to it; the current password is asked first, and
 * the code of two-factor sign-in when it is on (docs/decisions/072).
 */
export const ChangeEmailBodySchema = z.object({ newEmail: EmailSchema, currentPassword: CurrentPasswordSchema, twoFactorCode: OptionalTwoFactorCodeSchema })
export type ChangeEmailBody = z.input<typeof ChangeEmailBodySchema>

export const ConfirmEmailChangeBodySchema = z.object({ token: TokenSchema })
export const ConfirmEmailChangeResponseSchema = z.object({ email: text() })

/**
 * A new phone number: ten digits, as at sign-up; it takes effect once the texted code is entered.
 * The current password is asked first (a number change redirects every call and text).
 */
export const ChangePhoneBodySchema = z.object({ phoneNumber: PhoneSchema, currentPassword: CurrentPasswordSchema })
export type ChangePhoneBody = z.input<typeof ChangePhoneBodySchema>

export const ConfirmPhoneBodySchema = z.object({
  code: text({ error: 'Enter the code we texted you' })
    .trim()
    .min(1, 'Enter the code we texted you')
    .regex(new RegExp(`^[0-9]{${PHONE_CODE_DIGITS}}$`), `The code is ${PHONE_CODE_DIGITS} digits`),
})
export type ConfirmPhoneBody = z.input<typeof ConfirmPhoneBodySchema>

export const ChangePasswordBodySchema = z
  .object({
    currentPassword: CurrentPasswordSchema,
    newPassword: NewPasswordSchema,
    confirmPassword: text({ error: 'Please confirm your password' }).min(1, 'Please confirm your password'),
    /** Asked when two-factor sign-in is on (docs/decisions/072). */
    twoFactorCode: OptionalTwoFactorCodeSchema,
  })
  .refine((body) => body.newPassword === body.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] })
  .refine((body) => body.newPassword !== body.currentPassword, { message: 'Choose a password different from your current one', path: ['newPassword'] })
export type ChangePasswordBody = z.input<typeof ChangePasswordBodySchema>

/** The profile as the account page shows it, with the changes waiting for their confirmation. */
export const AccountResponseSchema = z.object({
  fullName: text(),
  email: text(),
  emailConfirmed: z.boolean(),
  /** Ten digits. */
  phoneNumber: text(),
  /** A new address waiting for its link to be followed (the current one works until then). */
  pendingEmail: z.object({ email: text(), expiresAt: text() }).nullable(),
  /** A new number waiting for its texted code (calls and texts go to the current one until then). */
  pendingPhone: z.object({ phoneNumber: text(), expiresAt: text() }).nullable(),
  /** Whether codes are really texted (Twilio configured), or written to the server's log. */
  textsLive: z.boolean(),
  /**
   * Whether the current number is proven the person's (a START texted from it, or the code we
   * texted to it entered): nothing is sent to a number until it is (docs/decisions/060).
   */
  phoneVerified: z.boolean(),
  /** The current number texted STOP: no call or text reaches it until a START comes from it. */
  phoneStopped: z.boolean(),
  /** A code texted to the current number to verify it, waiting to be entered. */
  pendingVerification: z.object({ expiresAt: text() }).nullable(),
  /** Our number (START and STOP go to it), as shown. */
  smsDisplayNumber: text(),
})
export type AccountResponse = z.infer<typeof AccountResponseSchema>

/** What a STOP means wherever something cannot be sent: why, and how it comes back (docs/decisions/060). */
export const stoppedMessage = (smsDisplayNumber: string) => `This number texted STOP. Text START to ${smsDisplayNumber} to turn calls and texts back on.`

const DEVICE_TYPES = ['desktop', 'mobile', 'tablet', 'tv'] as const

/** One signed-in session: where (browser and OS from its user agent; no place) and when. */
export const AccountSessionSchema = z.object({
  id: text(),
  /** e.g. "Chrome 131", or null when the user agent names none. */
  browser: text().nullable(),
  /** e.g. "macOS 14.5", "Windows 10", "iOS 18.1". */
  os: text().nullable(),
  device: z.enum(DEVICE_TYPES).nullable(),
  createdAt: text(),
  /** To within a few minutes (written at most every 5 minutes). */
  lastSeenAt: text(),
  /** The session of this request. */
  current: z.boolean(),
})
export type AccountSession = z.infer<typeof AccountSessionSchema>

export const SessionsResponseSchema = z.object({ sessions: z.array(AccountSessionSchema) })

export const SessionParamsSchema = z.object({ id: text().regex(/^[a-z2-7]{20,64}$/, 'Not a session id') })

/** How many other sessions a password change or "Sign out everywhere else" ended. */
export const SignedOutResponseSchema = z.object({ signedOut: z.number().int().nonnegative() })
