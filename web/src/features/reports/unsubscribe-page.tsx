import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { MailXIcon } from 'lucide-react'
import { UNSUBSCRIBE_BUTTON_TEXT } from '#common/reports'
import { AppShell } from '#web/components/app-shell'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { unsubscribeFromReports } from './api'

/**
 * /unsubscribe: where a report email's unsubscribe link leads (the token in the fragment, so no
 * request or log carries it). Opening it changes nothing: the button unsubscribes (mail scanners
 * open links). No sign-in needed.
 */
export function UnsubscribePage({ hash }: { hash: string }) {
  useDocumentTitle('Weekly Report Emails')
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? ''
  const unsubscribe = useMutation({ mutationFn: () => unsubscribeFromReports(token) })

  let body: React.ReactNode
  if (!token) {
    body = (
      <p role="alert" className="text-destructive">
        This unsubscribe link is incomplete. Use the link in your weekly report email, or sign in and{' '}
        <Link to="/help" search={{ topic: 'texts', from: '/unsubscribe' }} className="underline underline-offset-4">
          contact support
        </Link>
        .
      </p>
    )
  } else if (unsubscribe.isSuccess) {
    body = (
      <div role="status" className="space-y-2">
        <p className="font-semibold">You're unsubscribed.</p>
        <p className="text-muted-foreground">We won't send you weekly report emails anymore. Your reports stay in the app, under Weekly Reports.</p>
      </div>
    )
  } else {
    body = (
      <div className="space-y-4">
        <p className="text-muted-foreground">Stop the email we send every Sunday evening with your week's progress. Your reports stay in the app.</p>
        {unsubscribe.isError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {unsubscribe.error.message}
          </p>
        ) : null}
        <Button onClick={() => unsubscribe.mutate()} disabled={unsubscribe.isPending}>
          <MailXIcon aria-hidden="true" />
          {UNSUBSCRIBE_BUTTON_TEXT}
        </Button>
      </div>
    )
  }

  return (
    <AppShell mainClassName="flex items-center justify-center px-4 py-12">
      <Card className="w-full max-w-lg">
        <CardHeader>
          <h1 className="text-2xl leading-none font-semibold">Weekly Report Emails</h1>
          <CardDescription>Momentum Coach sends your progress report every Sunday at 6:00 PM.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-6">
          {body}
          <p className="text-sm text-muted-foreground">
            <Link to="/dashboard" className="rounded-sm text-primary underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring">
              Go to your dashboard
            </Link>
          </p>
        </CardContent>
      </Card>
    </AppShell>
  )
}
