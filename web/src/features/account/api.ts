/**
 * The account page's API (issue 16): the profile with its pending email and phone changes, the
 * password and the signed-in sessions. Every call is the signed-in person's own.
 */
import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  AccountResponseSchema,
  ConfirmEmailChangeResponseSchema,
  SessionsResponseSchema,
  SignedOutResponseSchema,
  type ChangeEmailBody,
  type ChangePasswordBody,
  type ChangePhoneBody,
  type ConfirmPhoneBody,
  type UpdateProfileBody,
} from '#common/account'
import { AccountActivityResponseSchema } from '#common/audit'
import {
  RecoveryCodesResponseSchema,
  TwoFactorSetupResponseSchema,
  TwoFactorStatusResponseSchema,
  type RecoveryCodesBody,
  type TwoFactorDisableBody,
  type TwoFactorEnableBody,
  type TwoFactorSetupBody,
} from '#common/two-factor'
import { AccountUsageResponseSchema } from '#common/usage'
import { api } from '#web/lib/api-client'

export const accountKeys = {
  all: ['account'] as const,
  profile: ['account', 'profile'] as const,
  sessions: ['account', 'sessions'] as const,
  usage: ['account', 'usage'] as const,
  twoFactor: ['account', 'two-factor'] as const,
  activity: ['account', 'activity'] as const,
}

export const accountQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.profile,
    queryFn: ({ signal }) => api.get('/api/account', AccountResponseSchema, { signal }),
    staleTime: 0,
  })

export const sessionsQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.sessions,
    queryFn: async ({ signal }) => (await api.get('/api/account/sessions', SessionsResponseSchema, { signal })).sessions,
    staleTime: 0,
  })

/** This month's and today's use of the plan's in-app budget (docs/decisions/061). */
export const usageQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.usage,
    queryFn: ({ signal }) => api.get('/api/account/usage', AccountUsageResponseSchema, { signal }),
    staleTime: 0,
  })

/** Two-factor sign-in: on or off, since when, the recovery codes left (docs/decisions/072). */
export const twoFactorQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.twoFactor,
    queryFn: ({ signal }) => api.get('/api/account/two-factor', TwoFactorStatusResponseSchema, { signal }),
    staleTime: 0,
  })

/** The audit log's events about the person, newest first. */
export const activityQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.activity,
    queryFn: async ({ signal }) => (await api.get('/api/account/activity', AccountActivityResponseSchema, { signal })).events,
    staleTime: 0,
  })

export const beginTwoFactorSetup = (body: TwoFactorSetupBody) => api.post('/api/account/two-factor/setup', body, TwoFactorSetupResponseSchema)
export const enableTwoFactor = (body: TwoFactorEnableBody) => api.post('/api/account/two-factor', body, RecoveryCodesResponseSchema)
export const disableTwoFactor = (body: TwoFactorDisableBody) => api.post('/api/account/two-factor/disable', body, TwoFactorStatusResponseSchema)
export const regenerateRecoveryCodes = (body: RecoveryCodesBody) => api.post('/api/account/two-factor/recovery-codes', body, RecoveryCodesResponseSchema)

export const updateProfile = (body: UpdateProfileBody) => api.patch('/api/account/profile', body, AccountResponseSchema)
export const requestEmailChange = (body: ChangeEmailBody) => api.post('/api/account/email', body, AccountResponseSchema)
export const cancelEmailChange = () => api.delete('/api/account/email', AccountResponseSchema)
/** The link emailed to the new address: the address it made the account's. */
export const confirmEmailChange = (token: string) => api.post('/api/account/email/confirm', { token }, ConfirmEmailChangeResponseSchema)
export const requestPhoneChange = (body: ChangePhoneBody) => api.post('/api/account/phone', body, AccountResponseSchema)
export const confirmPhoneChange = (body: ConfirmPhoneBody) => api.post('/api/account/phone/confirm', body, AccountResponseSchema)
/** A new code for the pending phone change. */
export const resendPhoneChangeCode = () => api.post('/api/account/phone/resend', undefined, AccountResponseSchema)
/** "Verify your number": a code texted to the current number, then entered. */
export const requestPhoneVerification = () => api.post('/api/account/phone/verification', undefined, AccountResponseSchema)
export const confirmPhoneVerification = (body: ConfirmPhoneBody) => api.post('/api/account/phone/verification/confirm', body, AccountResponseSchema)
export const cancelPhoneChange = () => api.delete('/api/account/phone', AccountResponseSchema)
export const changePassword = (body: ChangePasswordBody) => api.post('/api/account/password', body, SignedOutResponseSchema)
export const signOutSession = (id: string) => api.delete(`/api/account/sessions/${encodeURIComponent(id)}`, z.undefined())
export const signOutOtherSessions = () => api.post('/api/account/sessions/sign-out-others', undefined, SignedOutResponseSchema)
