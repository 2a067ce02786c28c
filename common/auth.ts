import { z } from 'zod'
import { text } from './text'
import { digitsOf, EMAIL_MAX, FULL_NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, POST_LOGIN_PATHS } from './auth-constants'
import { PARTNER_PROGRAM_PATTERN } from './domain'
import { PlanIdSchema } from './plans'

/**
 * Spec 1 §5 and §9: the rules and the exact messages, shared by the forms and the server.
 * The zod-free constants and helpers live in auth-constants.ts (the web shows them before zod loads).
 */
export * from './auth-constants'

/**
 * One plain address and nothing else: a dot-atom local part (RFC 5322 atext, at most 64 characters;
 * no quoted strings, comments, spaces, angle brackets, commas or semicolons, which a mailer reads as
 * a display name or a list of addresses) and a host name of at least two dot-separated labels
 * (letters, digits and inner hyphens, at most 63 each), ending in a label of two or more characters
 * that starts with a letter. ASCII only.
 */
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])'
const EMAIL_PATTERN = new RegExp(`^(?=[^@]{1,64}@)${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${TOP_LABEL}$`)

export const EmailSchema = text({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(EMAIL_MAX, 'Please enter a valid email')
  .regex(EMAIL_PATTERN, 'Please enter a valid email')
  .transform((email) => email.toLowerCase())

export const PhoneSchema = text({ error: 'Please enter a valid 10-digit phone number' })
  .max(40, 'Please enter a valid 10-digit phone number')
  .transform(digitsOf)
  .refine((digits) => digits.length === 10, 'Please enter a valid 10-digit phone number')

export const NewPasswordSchema = text({ error: 'Password is required' })
  .min(1, 'Password is required')
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`)

export const PartnerProgramSchema = text()
  .trim()
  .max(64, 'Partner program must be at most 64 characters')
  .regex(PARTNER_PROGRAM_PATTERN, 'Partner program may contain only letters, digits, _ and -')

export const LoginBodySchema = z.object({
  email: EmailSchema,
  password: text({ error: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX, 'Invalid email or password'),
})
export type LoginBody = z.input<typeof LoginBodySchema>

export const FullNameSchema = text({ error: 'Full name is required' })
  .trim()
  .min(1, 'Full name is required')
  .max(FULL_NAME_MAX, `Full name must be at most ${FULL_NAME_MAX} characters`)

export const SignupBodySchema = z
  .object({
    fullName: FullNameSchema,
    email: EmailSchema,
    phoneNumber: PhoneSchema,
    password: NewPasswordSchema,
    confirmPassword: text({ error: 'Please confirm your password' }).min(1, 'Please confirm your password'),
    communicationConsent: z.boolean({ error: 'You must agree to receive messages' }).refine((v) => v, 'You must agree to receive messages'),
    termsAccepted: z.boolean({ error: 'You must agree to the terms of service' }).refine((v) => v, 'You must agree to the terms of service'),
    partnerProgram: PartnerProgramSchema.optional(),
  })
  .refine((body) => body.password === body.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] })
export type SignupBody = z.input<typeof SignupBodySchema>

export const ForgotPasswordBodySchema = z.object({ email: EmailSchema })

export const TokenSchema = text().trim().min(16, 'This link is invalid or has expired.').max(200, 'This link is invalid or has expired.')

export const ConfirmEmailBodySchema = z.object({ token: TokenSchema })

export const ResetPasswordBodySchema = z
  .object({
    token: TokenSchema,
    password: NewPasswordSchema,
    confirmPassword: text({ error: 'Please confirm your password' }).min(1, 'Please confirm your password'),
  })
  .refine((body) => body.password === body.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] })

/** The signed-in user, as the server reports it. */
export const SessionUserSchema = z.object({
  id: text(),
  email: text(),
  fullName: text(),
  phoneNumber: text(),
  emailConfirmed: z.boolean(),
  hasSubscription: z.boolean(),
  hasCompletedPayment: z.boolean(),
  hasOptedIn: z.boolean(),
  subscriptionTier: PlanIdSchema.nullable(),
  subscriptionEnd: text().nullable(),
  partnerProgram: text(),
})
export type SessionUser = z.infer<typeof SessionUserSchema>

export const SessionUserResponseSchema = z.object({ user: SessionUserSchema })

/**
 * Sign-in's answer (and a password reset's): the user, signed in; or, when two-factor sign-in is on,
 * `twoFactorRequired` with no user: the session waits for the code (POST /api/auth/two-factor).
 */
export const SignInResponseSchema = z.union([SessionUserResponseSchema, z.object({ twoFactorRequired: z.literal(true) })])
export type SignInResponse = z.infer<typeof SignInResponseSchema>

export const DestinationResponseSchema = z.object({ path: z.enum(POST_LOGIN_PATHS) })

export const MessageResponseSchema = z.object({ message: text() })
