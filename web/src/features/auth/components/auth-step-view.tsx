import { lazy } from 'react'
import { linkToken, type AuthMode, type AuthSearch } from '../search'

// Each screen loads when its link (or the sign-in's code step) is opened; this module itself only
// when /auth has a mode, so the first paint of the two tabs carries none of it.
const ConfirmEmailView = lazy(() => import('./confirm-email-view').then((m) => ({ default: m.ConfirmEmailView })))
const ResetPasswordView = lazy(() => import('./reset-password-view').then((m) => ({ default: m.ResetPasswordView })))
// The sign-in's code step (docs/decisions/072), for accounts with two-factor sign-in.
const TwoFactorView = lazy(() => import('./two-factor-step'))
const ConfirmEmailChangeView = lazy(() => import('#web/features/account/confirm-email-change-view').then((m) => ({ default: m.ConfirmEmailChangeView })))

/**
 * /auth with a mode: the sign-in's code step after the password when two-factor sign-in is on
 * (mode=two-factor), or one of the emailed links (mode=confirm, mode=reset, mode=invite,
 * mode=change-email; the token in the fragment).
 */
export default function AuthStepView({ mode, search, hash }: { mode: AuthMode; search: AuthSearch; hash: string }) {
  if (mode === 'two-factor') return <TwoFactorView returnTo={search.returnTo} />
  const token = linkToken(search, hash)
  if (mode === 'confirm') return <ConfirmEmailView token={token} />
  if (mode === 'reset' || mode === 'invite') return <ResetPasswordView token={token} invitation={mode === 'invite'} />
  return <ConfirmEmailChangeView token={token} />
}
