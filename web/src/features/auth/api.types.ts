/** The auth feature's request and session types, shared by its two halves (api.ts and api.requests.ts). */
import type { z } from 'zod'
import type { ForgotPasswordBodySchema, LoginBodySchema, ResetPasswordBodySchema, SessionUser, SignupBodySchema } from '#common/auth'

export type { SessionUser }
export type LoginInput = z.output<typeof LoginBodySchema>
export type SignupInput = z.output<typeof SignupBodySchema>
export type ForgotPasswordInput = z.output<typeof ForgotPasswordBodySchema>
export type ResetPasswordInput = z.output<typeof ResetPasswordBodySchema>

/**
 * Where a sign-in (or a password reset) stands: signed in, or waiting for the code of two-factor
 * sign-in (docs/decisions/072), which POST /api/auth/two-factor gives.
 */
export type SignInResult = { kind: 'signed-in'; user: SessionUser } | { kind: 'two-factor' }
