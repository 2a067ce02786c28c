import { createFileRoute } from '@tanstack/react-router'
import { StaffAccessError } from '#web/features/staff/staff-access'
import { staffOnly } from '#web/features/staff/staff-only'
import { InboxPage } from '#web/features/support/inbox-page'

/**
 * /support (docs/decisions/077): the support inbox, for support staff (and admins, who keep its
 * canned replies). Its search (`?status=…&ticket=…`) is read by the page itself.
 */
export const Route = createFileRoute('/_authenticated/support')({
  beforeLoad: staffOnly(['support', 'admin']),
  errorComponent: StaffAccessError,
  component: InboxPage,
})
