/**
 * /help (docs/decisions/077): ask support for help, and the person's requests with support's
 * replies. Any signed-in person, with a plan or not. "Contact support" elsewhere in the app links
 * here with the page it came from and the error code it showed (`?from=/goal-intake&error=INTERNAL`),
 * which go with the request so support need not ask.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { LifeBuoyIcon, RefreshCwIcon } from 'lucide-react'
import { useId, useState } from 'react'
import {
  FIRST_RESPONSE_PROMISE,
  SUPPORT_STATUS_NAMES,
  SUPPORT_TOPIC_NAMES,
  SUPPORT_TOPICS,
  SupportContextSchema,
  type SupportContext,
  type SupportTopic,
} from '#common/support'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { formatDateTime } from '#web/lib/date-time'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { myTicketsQueryOptions, openTicket, supportKeys } from './api'
import { errorFor, isFieldError, MessageField, NativeSelect } from './support-form'

const isTopic = (value: unknown): value is SupportTopic => SUPPORT_TOPICS.some((topic) => topic === value)

/** What the link that led here says: a topic to preselect, and the context to send (checked as the server checks it). */
function linkContext(search: Record<string, unknown>): { topic: SupportTopic | ''; context: SupportContext } {
  const parsed = SupportContextSchema.safeParse({
    ...(typeof search.from === 'string' ? { page: search.from } : {}),
    ...(typeof search.error === 'string' ? { errorCode: search.error } : {}),
  })
  return { topic: isTopic(search.topic) ? search.topic : '', context: parsed.success ? parsed.data : {} }
}

export function HelpPage() {
  useDocumentTitle('Help')
  const search = useSearch({ strict: false }) as Record<string, unknown>
  const tickets = useQuery(myTicketsQueryOptions())
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <header className="space-y-1">
          <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
            <LifeBuoyIcon className="size-7 text-brand-coach" aria-hidden="true" />
            Help
          </h1>
          <p className="text-muted-foreground">
            Ask us anything about your account, your plan, your calls or the app. A person on our support team answers.{' '}
            {tickets.data ? FIRST_RESPONSE_PROMISE[tickets.data.priority] : null}
          </p>
        </header>
        <NewRequest {...linkContext(search)} />
        <SectionCard title="Your requests">
          {tickets.isPending ? (
            <Spinner label="Loading your requests..." showLabel />
          ) : tickets.isError ? (
            <div role="alert" className="flex flex-col items-start gap-3">
              <p className="font-medium text-destructive">Unable to load your requests</p>
              <Button variant="outline" onClick={() => void tickets.refetch()} disabled={tickets.isFetching}>
                <RefreshCwIcon aria-hidden="true" />
                Try Again
              </Button>
            </div>
          ) : tickets.data.tickets.length === 0 ? (
            <p className="text-muted-foreground">You have not asked us anything yet.</p>
          ) : (
            <ul className="divide-y" aria-label="Your support requests">
              {tickets.data.tickets.map((ticket) => (
                <li key={ticket.id} className="flex flex-wrap items-center justify-between gap-2 py-3">
                  <div className="min-w-0">
                    <Link to="/help/$ticketId" params={{ ticketId: ticket.id }} className="font-medium underline-offset-4 hover:underline">
                      {SUPPORT_TOPIC_NAMES[ticket.topic]} <span className="text-muted-foreground">{ticket.reference}</span>
                    </Link>
                    <p className="text-sm text-muted-foreground">
                      Last message <time dateTime={ticket.lastMessageAt}>{formatDateTime(ticket.lastMessageAt)}</time>
                    </p>
                  </div>
                  <div className="flex items-center gap-2">
                    {ticket.lastFrom === 'support' && ticket.status !== 'resolved' ? <Badge>Support replied</Badge> : null}
                    <Badge variant="secondary">{SUPPORT_STATUS_NAMES[ticket.status]}</Badge>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </SectionCard>
      </div>
    </PageShell>
  )
}

function NewRequest({ topic: initialTopic, context }: { topic: SupportTopic | ''; context: SupportContext }) {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const topicId = useId()
  const [topic, setTopic] = useState<SupportTopic | ''>(initialTopic)
  const [message, setMessage] = useState('')
  const [missingTopic, setMissingTopic] = useState(false)
  const send = useMutation({
    mutationFn: () => openTicket({ topic: topic as SupportTopic, message, ...(context.page || context.errorCode ? { context } : {}) }),
    onSuccess: async (ticket) => {
      queryClient.setQueryData(supportKeys.ticket(ticket.id), ticket)
      await queryClient.invalidateQueries({ queryKey: supportKeys.mine })
      void toast({ title: 'Request sent', description: `We'll reply here and by email. Your reference is ${ticket.reference}.` })
      await navigate({ to: '/help/$ticketId', params: { ticketId: ticket.id } })
    },
    onError: (error) => {
      if (isFieldError(error, ['topic', 'message'])) return
      void toast({ title: 'Request not sent', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })
    },
  })
  const topicError = missingTopic ? 'Choose what your question is about.' : errorFor(send.error, 'topic')
  return (
    <SectionCard title="Ask for help" description="Tell us what happened and what you expected. Please don't include card numbers or passwords.">
      <form
        noValidate
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault()
          if (!topic) {
            setMissingTopic(true)
            document.getElementById(topicId)?.focus()
            return
          }
          send.mutate()
        }}
      >
        <Field id={topicId} label="What is it about?" error={topicError}>
          {(control) => (
            <NativeSelect
              {...control}
              value={topic}
              onChange={(event) => {
                setMissingTopic(false)
                setTopic(event.target.value as SupportTopic | '')
              }}
            >
              <option value="">Choose a topic</option>
              {SUPPORT_TOPICS.map((value) => (
                <option key={value} value={value}>
                  {SUPPORT_TOPIC_NAMES[value]}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <MessageField label="Your message" value={message} onChange={setMessage} error={errorFor(send.error, 'message')} rows={6} />
        {context.page || context.errorCode ? (
          <p className="text-sm text-muted-foreground" data-testid="support-context">
            We'll include {context.page ? <>the page you came from ({context.page})</> : null}
            {context.page && context.errorCode ? ' and ' : null}
            {context.errorCode ? <>the error code {context.errorCode}</> : null}, so you don't have to explain it.
          </p>
        ) : null}
        <Button type="submit" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send to support'}
        </Button>
      </form>
    </SectionCard>
  )
}
