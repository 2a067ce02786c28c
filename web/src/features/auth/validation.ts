/**
 * The forms' resolvers (react-hook-form's zod resolver with the shared schemas, so every message
 * is exactly the spec's), and the failure messages the login and sign-up forms toast. Loaded on
 * demand through `loadAuthValidation()` (api.ts): it brings zod, and neither is needed for the
 * forms' first paint. A validation waits for this module (lib/forms.ts, lazyResolver).
 */
import { zodResolver } from '@hookform/resolvers/zod'
import { ForgotPasswordBodySchema, LoginBodySchema, ResetPasswordBodySchema, SignupBodySchema } from '#common/auth'
import { TwoFactorSignInBodySchema } from '#common/two-factor'

export { fieldErrorOf, loginFailureMessage, signupFailureMessage } from './messages'

export const loginResolver = zodResolver(LoginBodySchema)
export const signupResolver = zodResolver(SignupBodySchema)
export const forgotPasswordResolver = zodResolver(ForgotPasswordBodySchema)
export const resetPasswordResolver = zodResolver(ResetPasswordBodySchema)
export const twoFactorSignInResolver = zodResolver(TwoFactorSignInBodySchema)
