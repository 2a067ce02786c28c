import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { MailCheckIcon, MailWarningIcon } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { Button } from '../../../components/ui/button'
import { Card, CardContent } from '../../../components/ui/card'
import { useDocumentTitle } from '../../../components/use-document-title'
import { isApiError } from '../../../lib/api-error'
import { toast } from '../../../lib/toast'
import { authKeys, loadAuthRequests, meQueryOptions, type SessionUser } from '../api'
import { failureMessage, INVALID_LINK_MESSAGE, isInvalidLinkError } from '../messages'
import { AuthLayout, AuthProgress } from './auth-layout'
import { BackToSignIn } from './back-to-sign-in'
import { ResendConfirmationButton } from './resend-confirmation-button'

/** /auth?mode=confirm&token=…: the emailed confirmation link. Confirms, then goes to /payment. */
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
  const { mutate } = confirm
  // A token is single-use: send it once, even if the effect runs twice (React StrictMode).
  const sentFor = useRef<string | null>(null)
  useEffect(() => {
    if (!token || sentFor.current === token) return
    sentFor.current = token
    mutate(token)
  }, [token, mutate])

  if (!token || (confirm.isError && isInvalidLinkError(confirm.error))) {
    const serverMessage = isApiError(confirm.error) && confirm.error.is('INVALID_TOKEN') ? confirm.error.message : undefined
    return <InvalidConfirmationLink message={serverMessage ?? INVALID_LINK_MESSAGE} />
  }

  if (confirm.isError) {
    return (
      <AuthLayout>
        <Card>
          <CardContent className="flex flex-col items-center gap-4 text-center">
            <h1 className="text-2xl font-bold tracking-tight">We couldn't confirm your email</h1>
            <p role="alert" className="text-muted-foreground">
              {failureMessage(confirm.error, 'Something went wrong. Please try again.')}
            </p>
            <div className="flex w-full flex-col gap-3">
              <Button onClick={() => confirm.mutate(token)}>Try again</Button>
              <BackToSignIn />
            </div>
          </CardContent>
        </Card>
      </AuthLayout>
    )
  }

  return (
    <AuthLayout>
      <AuthProgress title={confirm.isSuccess ? 'Email confirmed' : 'Confirming your email'}>
        {confirm.isSuccess ? 'Taking you to your plans…' : 'One moment while we confirm your email address…'}
      </AuthProgress>
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
