import { createFileRoute } from '@tanstack/react-router'
import { AccountPage } from '#web/features/account/account-page'

/**
 * /account: any signed-in person, paid or not (the page shows the call schedule and the channels
 * to paid members only). No loader: route options are in the entry chunk (ADR 020), and the page
 * fetches what it shows. Its search (`?setup=two-factor&returnTo=…`, docs/decisions/072) is read by
 * the page itself, for the same reason.
 */
export const Route = createFileRoute('/_authenticated/account')({
  component: AccountPage,
})
