/** The auth feature's request and session types, shared by its two halves (api.ts and api.requests.ts). */
import type { z } from 'zod'
import type { ForgotPasswordBodySchema, LoginBodySchema, ResetPasswordBodySchema, SessionUser, SignupBodySchema } from '#common/auth'

export type { SessionUser }
export type LoginInput = z.output<typeof LoginBodySchema>
export type SignupInput = z.output<typeof SignupBodySchema>
export type ForgotPasswordInput = z.output<typeof ForgotPasswordBodySchema>
export type ResetPasswordInput = z.output<typeof ResetPasswordBodySchema>
