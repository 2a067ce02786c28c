import { createFileRoute } from '@tanstack/react-router'
import { TwoFactorSetupPage } from '#web/features/account/two-factor-setup-page'

/** Where it goes after the set-up (a path on this site; checked again where it is followed). */
type TwoFactorSearch = { returnTo?: string }

function validateSearch(search: Record<string, unknown>): TwoFactorSearch {
  const returnTo = search.returnTo
  return typeof returnTo === 'string' && returnTo.length > 0 && returnTo.length <= 2048 ? { returnTo } : {}
}

/**
 * /account/two-factor (docs/decisions/072): turning on two-factor sign-in, for anyone signed in; the
 * staff pages send staff here first (with returnTo, to come back).
 */
export const Route = createFileRoute('/_authenticated/account_/two-factor')({
  validateSearch,
  component: TwoFactorSetupRoute,
})

function TwoFactorSetupRoute() {
  const { returnTo } = Route.useSearch()
  return <TwoFactorSetupPage returnTo={returnTo} />
}
