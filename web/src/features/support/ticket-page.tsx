/**
 * /help/$ticketId (docs/decisions/077): one of the person's support requests, the conversation
 * with support (their replies are emailed too), and adding to it. Another person's request, or
 * one that does not exist, is the not-found page.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeftIcon, RefreshCwIcon } from 'lucide-react'
import { useState } from 'react'
import { SUPPORT_STATUS_NAMES, SUPPORT_TOPIC_NAMES, type SupportTicketView } from '#common/support'
import { NotFoundPage } from '#web/components/not-found'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { formatDateTime } from '#web/lib/date-time'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { addMessage, myTicketQueryOptions, supportKeys } from './api'
import { errorFor, isFieldError, MessageField } from './support-form'

export function TicketPage({ ticketId }: { ticketId: string }) {
  const ticket = useQuery(myTicketQueryOptions(ticketId))
  useDocumentTitle(ticket.data ? `Request ${ticket.data.reference}` : 'Support request')
  if (ticket.isError && isApiError(ticket.error) && ticket.error.status === 404) return <NotFoundPage />
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <Link to="/help" className="inline-flex items-center gap-1 text-sm text-muted-foreground underline-offset-4 hover:underline">
          <ArrowLeftIcon className="size-4" aria-hidden="true" />
          All your requests
        </Link>
        {ticket.isPending ? (
          <Spinner size="lg" label="Loading your request..." showLabel />
        ) : ticket.isError ? (
          <div role="alert" className="flex flex-col items-start gap-3">
            <h1 className="text-3xl font-bold tracking-tight">Support request</h1>
            <p className="font-medium text-destructive">Unable to load this request</p>
            <Button variant="outline" onClick={() => void ticket.refetch()} disabled={ticket.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
          </div>
        ) : (
          <Conversation ticket={ticket.data} />
        )}
      </div>
    </PageShell>
  )
}

function Conversation({ ticket }: { ticket: SupportTicketView }) {
  const queryClient = useQueryClient()
  const [message, setMessage] = useState('')
  const send = useMutation({
    mutationFn: () => addMessage(ticket.id, message),
    onSuccess: async (updated) => {
      queryClient.setQueryData(supportKeys.ticket(ticket.id), updated)
      setMessage('')
      await queryClient.invalidateQueries({ queryKey: supportKeys.mine, exact: true })
      void toast({ title: 'Message sent', description: 'Support will see it in their inbox.' })
    },
    onError: (error) => {
      if (isFieldError(error, ['message'])) return
      void toast({ title: 'Message not sent', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })
    },
  })
  return (
    <>
      <header className="space-y-2">
        <h1 className="text-3xl font-bold tracking-tight">Request {ticket.reference}</h1>
        <p className="flex flex-wrap items-center gap-2 text-muted-foreground">
          {SUPPORT_TOPIC_NAMES[ticket.topic]}
          <Badge variant="secondary">{SUPPORT_STATUS_NAMES[ticket.status]}</Badge>
        </p>
      </header>
      <SectionCard title="Conversation">
        <ol className="space-y-4" aria-label="Messages">
          {ticket.messages.map((entry) => (
            <li key={entry.id} className={entry.from === 'you' ? 'rounded-lg bg-muted p-4' : 'rounded-lg border border-brand-coach/40 p-4'}>
              <p className="text-sm font-semibold">
                {entry.from === 'you' ? 'You' : `${entry.authorName ?? 'Momentum Coach'} from support`}{' '}
                <span className="font-normal text-muted-foreground">
                  · <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </span>
              </p>
              <p className="mt-1 whitespace-pre-wrap break-words">{entry.body}</p>
            </li>
          ))}
        </ol>
      </SectionCard>
      <SectionCard title="Add a message" description={ticket.status === 'resolved' ? 'This request is resolved. Writing again opens it again.' : undefined}>
        <form
          noValidate
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault()
            send.mutate()
          }}
        >
          <MessageField label="Your message" value={message} onChange={setMessage} error={errorFor(send.error, 'message')} rows={4} />
          <Button type="submit" disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Send'}
          </Button>
        </form>
      </SectionCard>
    </>
  )
}
