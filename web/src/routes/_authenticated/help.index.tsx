import { createFileRoute } from '@tanstack/react-router'
import { HelpPage } from '#web/features/support/help-page'

/**
 * /help (docs/decisions/077): any signed-in person. Its search (`?topic=…&from=…&error=…`, what a
 * "contact support" link sends) is read by the page itself: route options are in the entry chunk (ADR 020).
 */
export const Route = createFileRoute('/_authenticated/help/')({
  component: HelpPage,
})
