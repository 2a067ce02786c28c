/**
 * The auth calls, each response validated with the shared schema: the zod half of api.ts,
 * loaded on first use through `loadAuthRequests()`.
 */
import { z } from 'zod'
import { DestinationResponseSchema, MessageResponseSchema, SessionUserResponseSchema, type SessionUser } from '#common/auth'
import type { PostLoginPath } from '#common/auth-constants'
import { api, isApiError } from '#web/lib/api-client'
import type { ForgotPasswordInput, LoginInput, ResetPasswordInput, SignupInput } from './api.types'

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

export async function logIn(body: LoginInput): Promise<SessionUser> {
  const { user } = await api.post('/api/auth/login', body, SessionUserResponseSchema)
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

/** Sets the new password; the server signs in with a fresh session (every other one is revoked). */
export async function resetPassword(body: ResetPasswordInput): Promise<SessionUser> {
  const { user } = await api.post('/api/auth/reset-password', body, SessionUserResponseSchema)
  return user
}
