import { useQuery } from '@tanstack/react-query'
import { MailIcon } from 'lucide-react'
import { useState } from 'react'
import { PageShell } from '#web/features/navigation/page-shell'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { NETWORK_ERROR_MESSAGE } from '#web/lib/api-error'
import { toast } from '#web/lib/toast'
import { meQueryOptions } from '#web/features/auth/api'
import { BackToSignIn } from '#web/features/auth/components/back-to-sign-in'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { ResendConfirmationButton } from '#web/features/auth/components/resend-confirmation-button'
import { useSessionUser } from '#web/features/auth/components/guarded-layouts'
import { PlanSelection } from '#web/features/billing/plan-selection'

/**
 * /payment: the plans once the email is confirmed (choosing one: testing mode or
 * Stripe's embedded checkout, see billing/plan-selection), the 'Email Confirmation Required' view
 * before that.
 */
export function PaymentPage() {
  const user = useSessionUser()
  return (
    <PageShell mainClassName="px-4 py-12 sm:px-6 sm:py-16">
      {user.emailConfirmed ? <PlanSelection /> : <EmailConfirmationRequired email={user.email} />}
    </PageShell>
  )
}

function EmailConfirmationRequired({ email }: { email: string }) {
  useDocumentTitle('Email Confirmation Required')
  const me = useQuery(meQueryOptions())
  const [checking, setChecking] = useState(false)

  // I've Confirmed My Email: ask the server again.
  async function recheck() {
    setChecking(true)
    const result = await me.refetch()
    setChecking(false)
    if (result.isError) {
      void toast({ title: "We couldn't check right now", description: NETWORK_ERROR_MESSAGE, variant: 'destructive' })
    } else if (result.data?.emailConfirmed) {
      void toast({ title: 'Email Confirmed!', description: 'You can now proceed with your subscription.' })
    } else if (result.data) {
      void toast({
        title: 'Email Not Confirmed Yet',
        description: 'Please check your email and click the confirmation link first.',
        variant: 'destructive',
      })
    }
  }

  return (
    <Card className="mx-auto max-w-lg">
      <CardContent className="flex flex-col items-center gap-4 text-center">
        <span className="flex size-14 items-center justify-center rounded-full bg-secondary">
          <MailIcon className="size-7 text-brand-momentum" aria-hidden="true" />
        </span>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Email Confirmation Required</h1>
        <p>
          We sent a confirmation link to <strong className="break-all">{email}</strong>. Click the link in that email to
          confirm your address, then come back here to choose your plan.
        </p>
        <p className="text-sm text-muted-foreground">Can't find it? Check your spam folder, or send it again.</p>
        <div className="mt-2 flex w-full flex-col gap-3">
          <Button size="lg" onClick={() => void recheck()} disabled={checking}>
            <PendingLabel pending={checking} idle="I've Confirmed My Email" busy="Checking..." />
          </Button>
          <ResendConfirmationButton />
          <BackToSignIn />
        </div>
      </CardContent>
    </Card>
  )
}
