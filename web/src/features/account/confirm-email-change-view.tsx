/**
 * /auth?mode=change-email#token=…: the link emailed to a new address (docs/decisions/050). Like the
 * confirmation link, opening it changes nothing (mail scanners open links); the button does. It
 * needs no session, so it works in another browser; afterwards the new address signs in.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { MailCheckIcon, MailWarningIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-error'
import { toast } from '#web/lib/toast'
import { authKeys, meQueryOptions } from '#web/features/auth/api'
import { AuthLayout } from '#web/features/auth/components/auth-layout'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { failureMessage, INVALID_LINK_MESSAGE, isInvalidLinkError } from '#web/features/auth/messages'
import { accountKeys, confirmEmailChange } from './api'

/** What a token looks like (lower-case base32): anything else is an invalid link at once. */
const looksLikeToken = (token: string) => /^[a-z2-7]{16,200}$/.test(token)

export function ConfirmEmailChangeView({ token }: { token: string | undefined }) {
  useDocumentTitle('Confirm your new email')
  const queryClient = useQueryClient()
  const me = useQuery(meQueryOptions())
  const confirm = useMutation({
    mutationFn: (value: string) => confirmEmailChange(value),
    onSuccess: ({ email }) => {
      void queryClient.invalidateQueries({ queryKey: authKeys.me })
      void queryClient.invalidateQueries({ queryKey: accountKeys.all })
      void toast({ title: 'Email changed', description: `Your email is now ${email}. Use it to sign in.` })
    },
  })
  const signedIn = Boolean(me.data)

  if (!token || !looksLikeToken(token) || (confirm.isError && isInvalidLinkError(confirm.error))) {
    const message = isApiError(confirm.error) && confirm.error.is('INVALID_TOKEN') ? confirm.error.message : INVALID_LINK_MESSAGE
    return (
      <Outcome icon={<MailWarningIcon className="size-10 text-brand-coach" aria-hidden="true" />} title="This link can't be used" signedIn={signedIn}>
        <p className="text-muted-foreground">{message}</p>
        <p>You can ask for a new link on your account page.</p>
      </Outcome>
    )
  }

  if (confirm.isSuccess) {
    return (
      <Outcome icon={<MailCheckIcon className="size-10 text-success" aria-hidden="true" />} title="Your email is changed" signedIn={signedIn}>
        <p>
          From now on, sign in with <strong className="break-all">{confirm.data.email}</strong>.
        </p>
      </Outcome>
    )
  }

  return (
    <AuthLayout>
      <Card>
        <CardContent className="flex flex-col items-center gap-4 text-center">
          <MailCheckIcon className="size-10 text-brand-coach" aria-hidden="true" />
          <h1 className="text-2xl font-bold tracking-tight">Confirm your new email</h1>
          <p className="text-muted-foreground">Make this address your Momentum Coach email. Your current one stops working for sign-in once you do.</p>
          {confirm.isError ? (
            <p role="alert" className="text-sm font-medium text-destructive">
              {failureMessage(confirm.error, 'Something went wrong. Please try again.')}
            </p>
          ) : null}
          <Button className="w-full" onClick={() => confirm.mutate(token)} disabled={confirm.isPending}>
            <PendingLabel pending={confirm.isPending} idle="Confirm new email" busy="Confirming..." />
          </Button>
        </CardContent>
      </Card>
    </AuthLayout>
  )
}

function Outcome({ icon, title, signedIn, children }: { icon: ReactNode; title: string; signedIn: boolean; children: ReactNode }) {
  return (
    <AuthLayout>
      <Card>
        <CardContent className="flex flex-col items-center gap-4 text-center">
          {icon}
          <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
          {children}
          <Button asChild className="w-full">
            {signedIn ? <Link to="/account">Go to your account</Link> : <Link to="/auth">Sign in</Link>}
          </Button>
        </CardContent>
      </Card>
    </AuthLayout>
  )
}
