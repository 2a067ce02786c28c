import { createFileRoute } from '@tanstack/react-router'
import { useDocumentTitle } from '../../components/use-document-title'
import { AccountDataSection } from '../../features/account/data-section'
import { PageShell } from '../../features/navigation/page-shell'

/** /account (issue 16): for now the data section alone; the account page's other sections join it. */
export const Route = createFileRoute('/_authenticated/account')({
  component: AccountRoute,
})

function AccountRoute() {
  useDocumentTitle('Account')
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <h1 className="text-3xl font-bold tracking-tight">Account</h1>
        <AccountDataSection />
      </div>
    </PageShell>
  )
}
