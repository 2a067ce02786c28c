/**
 * The auth calls, each response validated with the shared schema: the zod half of api.ts,
 * loaded on first use through `loadAuthRequests()`.
 */
import { z } from 'zod'
import { DestinationResponseSchema, MessageResponseSchema, SessionUserResponseSchema, SignInResponseSchema, type SessionUser, type SignInResponse } from '#common/auth'
import type { PostLoginPath } from '#common/auth-constants'
import { api, isApiError } from '#web/lib/api-client'
import type { ForgotPasswordInput, LoginInput, ResetPasswordInput, SignInResult, SignupInput } from './api.types'

/** GET /api/me; a 401 means signed out (null). */
export async function fetchMe(signal?: AbortSignal): Promise<SessionUser | null> {
  try {
    const { user } = await api.get('/api/me', SessionUserResponseSchema, { signal })
    return user
  } catch (error) {
    if (isApiError(error) && error.status === 401) return null
    throw error
  }
}

const signInResult = (body: SignInResponse): SignInResult => ('user' in body ? { kind: 'signed-in', user: body.user } : { kind: 'two-factor' })

/** Email and password: signed in, or (two-factor sign-in on) the session waits for the code. */
export async function logIn(body: LoginInput): Promise<SignInResult> {
  return signInResult(await api.post('/api/auth/login', body, SignInResponseSchema))
}

/** The sign-in's second step: the code from the authenticator app, or a recovery code. */
export async function completeTwoFactor(code: string): Promise<SessionUser> {
  const { user } = await api.post('/api/auth/two-factor', { code }, SessionUserResponseSchema)
  return user
}

export async function signUp(body: SignupInput): Promise<SessionUser> {
  const { user } = await api.post('/api/auth/signup', body, SessionUserResponseSchema)
  return user
}

/** POST /api/auth/logout (204). */
export async function logOut(): Promise<void> {
  await api.post('/api/auth/logout', undefined, z.undefined())
}

/** Post-login routing, decided by the server. */
export async function fetchDestination(): Promise<PostLoginPath> {
  const { path } = await api.post('/api/auth/destination', undefined, DestinationResponseSchema)
  return path
}

export async function confirmEmail(token: string): Promise<SessionUser> {
  const { user } = await api.post('/api/auth/confirm-email', { token }, SessionUserResponseSchema)
  return user
}

/** Sends the confirmation email again; resolves to the server's message. */
export async function resendConfirmation(): Promise<string> {
  const { message } = await api.post('/api/auth/resend-confirmation', undefined, MessageResponseSchema)
  return message
}

/** Asks for a reset link; the server answers the same whether the account exists or not. */
export async function requestPasswordReset(body: ForgotPasswordInput): Promise<string> {
  const { message } = await api.post('/api/auth/forgot-password', body, MessageResponseSchema)
  return message
}

/**
 * Sets the new password; the server signs in with a fresh session (every other one is revoked),
 * which waits for the two-factor code when that is on.
 */
export async function resetPassword(body: ResetPasswordInput): Promise<SignInResult> {
  return signInResult(await api.post('/api/auth/reset-password', body, SignInResponseSchema))
}
