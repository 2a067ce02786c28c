import { z } from 'zod'
import { PARTNER_PROGRAM_PATTERN } from './domain'
import { PlanIdSchema } from './plans'

/** Spec 1 §5 and §9: the rules and the exact messages, shared by the forms and the server. */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 256
export const PHONE_INPUT_MAX = 14
export const FULL_NAME_MAX = 200
export const EMAIL_MAX = 254

/** The consent text shown at sign-up (spec 1 §2), and its version recorded with the consent. */
export const CONSENT_TEXT_VERSION = '2026-11-01'
export const CONSENT_TEXT =
  'I agree to receive calls and text messages from Momentum Coach. Message frequency varies. Message and data rates may apply. Reply HELP for help or STOP to cancel. Consent is not a condition of purchase.'
export const TERMS_TEXT = 'I agree to the terms of service'

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const EmailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(EMAIL_MAX, 'Please enter a valid email')
  .regex(SIMPLE_EMAIL, 'Please enter a valid email')
  .transform((email) => email.toLowerCase())

/** Digits only; the form shows them as (123) 456-7890. */
export const digitsOf = (value: string) => value.replace(/\D/g, '')

export function formatPhone(value: string): string {
  const digits = digitsOf(value).slice(0, 10)
  if (digits.length === 0) return ''
  if (digits.length < 4) return `(${digits}`
  if (digits.length < 7) return `(${digits.slice(0, 3)}) ${digits.slice(3)}`
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`
}

export const PhoneSchema = z
  .string({ error: 'Please enter a valid 10-digit phone number' })
  .max(40, 'Please enter a valid 10-digit phone number')
  .transform(digitsOf)
  .refine((digits) => digits.length === 10, 'Please enter a valid 10-digit phone number')

export const NewPasswordSchema = z
  .string({ error: 'Password is required' })
  .min(1, 'Password is required')
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`)

export const PartnerProgramSchema = z
  .string()
  .trim()
  .max(64, 'Partner program must be at most 64 characters')
  .regex(PARTNER_PROGRAM_PATTERN, 'Partner program may contain only letters, digits, _ and -')

export const LoginBodySchema = z.object({
  email: EmailSchema,
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX, 'Invalid email or password'),
})
export type LoginBody = z.input<typeof LoginBodySchema>

export const SignupBodySchema = z
  .object({
    fullName: z
      .string({ error: 'Full name is required' })
      .trim()
      .min(1, 'Full name is required')
      .max(FULL_NAME_MAX, `Full name must be at most ${FULL_NAME_MAX} characters`),
    email: EmailSchema,
    phoneNumber: PhoneSchema,
    password: NewPasswordSchema,
    confirmPassword: z.string({ error: 'Please confirm your password' }).min(1, 'Please confirm your password'),
    communicationConsent: z.boolean({ error: 'You must agree to receive messages' }).refine((v) => v, 'You must agree to receive messages'),
    termsAccepted: z.boolean({ error: 'You must agree to the terms of service' }).refine((v) => v, 'You must agree to the terms of service'),
    partnerProgram: PartnerProgramSchema.optional(),
  })
  .refine((body) => body.password === body.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] })
export type SignupBody = z.input<typeof SignupBodySchema>

export const ForgotPasswordBodySchema = z.object({ email: EmailSchema })

export const TokenSchema = z.string().trim().min(16, 'This link is invalid or has expired.').max(200, 'This link is invalid or has expired.')

export const ConfirmEmailBodySchema = z.object({ token: TokenSchema })

export const ResetPasswordBodySchema = z
  .object({
    token: TokenSchema,
    password: NewPasswordSchema,
    confirmPassword: z.string({ error: 'Please confirm your password' }).min(1, 'Please confirm your password'),
  })
  .refine((body) => body.password === body.confirmPassword, { message: 'Passwords do not match', path: ['confirmPassword'] })

/** The session user of spec 1 §3, as the server reports it. */
export const SessionUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  fullName: z.string(),
  phoneNumber: z.string(),
  emailConfirmed: z.boolean(),
  hasSubscription: z.boolean(),
  hasCompletedPayment: z.boolean(),
  hasOptedIn: z.boolean(),
  subscriptionTier: PlanIdSchema.nullable(),
  subscriptionEnd: z.string().nullable(),
  partnerProgram: z.string(),
})
export type SessionUser = z.infer<typeof SessionUserSchema>

export const SessionUserResponseSchema = z.object({ user: SessionUserSchema })

export const POST_LOGIN_PATHS = ['/dashboard', '/goal-intake', '/payment'] as const
export const DestinationResponseSchema = z.object({ path: z.enum(POST_LOGIN_PATHS) })

export const MessageResponseSchema = z.object({ message: z.string() })

/** Error codes of the auth endpoints, mapped to the spec's toasts by the web. */
export const AUTH_ERROR_CODES = {
  invalidCredentials: 'INVALID_CREDENTIALS',
  emailTaken: 'EMAIL_TAKEN',
  commonPassword: 'COMMON_PASSWORD',
  invalidToken: 'INVALID_TOKEN',
} as const

/**
 * `returnTo` is honoured only when it is a path on this site: starts with one "/", not "//" or "/\",
 * no scheme, no control characters. Anything else falls back to the post-login routing.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined
  if ([...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f' || ch === '\\')) return undefined
  try {
    const url = new URL(value, 'http://same.invalid')
    if (url.origin !== 'http://same.invalid') return undefined
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return undefined
  }
}
