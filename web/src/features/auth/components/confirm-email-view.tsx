import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { MailCheckIcon, MailWarningIcon } from 'lucide-react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-error'
import { toast } from '#web/lib/toast'
import { authKeys, loadAuthRequests, meQueryOptions, type SessionUser } from '#web/features/auth/api'
import { failureMessage, INVALID_LINK_MESSAGE, isInvalidLinkError } from '#web/features/auth/messages'
import { AuthLayout, AuthProgress } from './auth-layout'
import { BackToSignIn } from './back-to-sign-in'
import { PendingLabel } from './pending-label'
import { ResendConfirmationButton } from './resend-confirmation-button'

/** What a token looks like (lower-case base32): anything else is shown as an invalid link at once. */
const looksLikeToken = (token: string) => /^[a-z2-7]{16,200}$/.test(token)

/**
 * /auth?mode=confirm#token=…: the emailed confirmation link. Opening it changes nothing (mail
 * scanners open links, and some run their scripts); the person confirms with the button, which
 * posts the token, and then goes on to /payment.
 */
export function ConfirmEmailView({ token }: { token: string | undefined }) {
  useDocumentTitle('Confirm your email')
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const confirm = useMutation({
    mutationFn: async (value: string) => (await loadAuthRequests()).confirmEmail(value),
    onSuccess: async (user) => {
      // The session (if any) may belong to this user: show the confirmed state at once, then re-ask.
      queryClient.setQueryData<SessionUser | null>(authKeys.me, (current) => (current && current.id === user.id ? user : current))
      void queryClient.invalidateQueries({ queryKey: authKeys.me })
      void toast({ title: 'Email Confirmed!', description: 'You can now proceed with your subscription.' })
      await navigate({ to: '/payment', replace: true })
    },
  })

  if (!token || !looksLikeToken(token) || (confirm.isError && isInvalidLinkError(confirm.error))) {
    const serverMessage = isApiError(confirm.error) && confirm.error.is('INVALID_TOKEN') ? confirm.error.message : undefined
    return <InvalidConfirmationLink message={serverMessage ?? INVALID_LINK_MESSAGE} />
  }

  if (confirm.isSuccess) {
    return (
      <AuthLayout>
        <AuthProgress title="Email confirmed">Taking you to your plans…</AuthProgress>
      </AuthLayout>
    )
  }

  return (
    <AuthLayout>
      <Card>
        <CardContent className="flex flex-col items-center gap-4 text-center">
          <MailCheckIcon className="size-10 text-brand-coach" aria-hidden="true" />
          <h1 className="text-2xl font-bold tracking-tight">Confirm your email</h1>
          <p className="text-muted-foreground">Confirm this email address to choose your plan and start coaching.</p>
          {confirm.isError ? (
            <p role="alert" className="text-sm font-medium text-destructive">
              {failureMessage(confirm.error, 'Something went wrong. Please try again.')}
            </p>
          ) : null}
          <div className="flex w-full flex-col gap-3">
            <Button onClick={() => confirm.mutate(token)} disabled={confirm.isPending}>
              <PendingLabel pending={confirm.isPending} idle="Confirm email" busy="Confirming…" />
            </Button>
          </div>
        </CardContent>
      </Card>
    </AuthLayout>
  )
}

function InvalidConfirmationLink({ message }: { message: string }) {
  const me = useQuery(meQueryOptions())
  const user = me.data
  return (
    <AuthLayout>
      <Card>
        <CardContent className="flex flex-col items-center gap-4 text-center">
          {user?.emailConfirmed ? (
            <MailCheckIcon className="size-10 text-success" aria-hidden="true" />
          ) : (
            <MailWarningIcon className="size-10 text-brand-coach" aria-hidden="true" />
          )}
          <h1 className="text-2xl font-bold tracking-tight">This confirmation link can't be used</h1>
          <p className="text-muted-foreground">{message}</p>
          {user && !user.emailConfirmed ? (
            <p>
              You're signed in as <strong className="break-all">{user.email}</strong>. We can send you a new
              confirmation link.
            </p>
          ) : null}
          {user?.emailConfirmed ? <p>Good news: your email address is already confirmed.</p> : null}
          {!user ? <p>Sign in to your account and we can send you a new confirmation link.</p> : null}
          <div className="flex w-full flex-col gap-3">
            {user && !user.emailConfirmed ? <ResendConfirmationButton variant="default" /> : null}
            {user?.emailConfirmed ? (
              <Button asChild>
                <Link to="/payment">Continue</Link>
              </Button>
            ) : null}
            <BackToSignIn variant={user ? 'ghost' : 'default'} />
          </div>
        </CardContent>
      </Card>
    </AuthLayout>
  )
}
