/**
 * /support (docs/decisions/077): the support inbox, for support staff. Requests by plan priority
 * (Elite, Premium, then the rest) and age, each with its first-reply target; one opened shows the
 * conversation with internal notes, the member's account and billing state (never their coaching
 * data), and the context the Help page sent. Replying emails the member. Opening, replying, a note
 * and a change of status are each in the member's audit log. Admins keep the canned replies here.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { InboxIcon, RefreshCwIcon } from 'lucide-react'
import { useId, useState } from 'react'
import {
  SUPPORT_STATUS_NAMES,
  SUPPORT_TICKET_STATUSES,
  SUPPORT_TOPIC_NAMES,
  type InboxTicketDetail,
  type SupportPriority,
  type SupportTicketStatus,
} from '#common/support'
import { NotFoundPage } from '#web/components/not-found'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Checkbox } from '#web/components/ui/checkbox'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { formatDateTime } from '#web/lib/date-time'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { staffMeQueryOptions } from '#web/features/staff/api'
import { useStaffRefusal } from '#web/features/staff/staff-access'
import {
  addNote,
  cannedRepliesQueryOptions,
  createCannedReply,
  deleteCannedReply,
  inboxQueryOptions,
  inboxTicketQueryOptions,
  replyToTicket,
  setTicketStatus,
  supportKeys,
  type InboxFilter,
} from './api'
import { errorFor, isFieldError, MessageField, NativeSelect } from './support-form'

const PRIORITY_NAMES: Readonly<Record<SupportPriority, string>> = { elite: 'Elite', premium: 'Premium', basic: 'Basic' }
const PLAN_NAMES = PRIORITY_NAMES
const FILTERS: readonly InboxFilter[] = [...SUPPORT_TICKET_STATUSES, 'all']
const FILTER_NAMES: Readonly<Record<InboxFilter, string>> = { open: 'Open', waiting_on_member: 'Waiting on the member', resolved: 'Resolved', all: 'All' }
const isFilter = (value: unknown): value is InboxFilter => FILTERS.some((filter) => filter === value)

export function InboxPage() {
  useDocumentTitle('Support inbox')
  const search = useSearch({ strict: false }) as Record<string, unknown>
  const navigate = useNavigate()
  const filter: InboxFilter = isFilter(search.status) ? search.status : 'open'
  const selected = typeof search.ticket === 'string' ? search.ticket : null
  const me = useQuery(staffMeQueryOptions())
  const isSupport = me.data?.roles.includes('support') ?? false
  const isAdmin = me.data?.roles.includes('admin') ?? false
  const filterId = useId()
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-6xl space-y-6">
        <header className="space-y-1">
          <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
            <InboxIcon className="size-7 text-brand-coach" aria-hidden="true" />
            Support inbox
          </h1>
          <p className="text-muted-foreground">Elite first, then Premium, then everyone else; oldest first. First-reply targets count business hours (Monday to Friday, 9 AM to 5 PM Eastern).</p>
        </header>
        {isSupport ? (
          <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
            <div className="space-y-3">
              <div className="flex items-center gap-2">
                <Label htmlFor={filterId}>Show</Label>
                <NativeSelect
                  id={filterId}
                  value={filter}
                  onChange={(event) => void navigate({ to: '/support', search: { status: event.target.value } })}
                  className="w-auto"
                >
                  {FILTERS.map((value) => (
                    <option key={value} value={value}>
                      {FILTER_NAMES[value]}
                    </option>
                  ))}
                </NativeSelect>
              </div>
              <TicketList filter={filter} selected={selected} />
            </div>
            {selected ? <TicketDetail key={selected} ticketId={selected} /> : <p className="text-muted-foreground">Choose a request to read it.</p>}
          </div>
        ) : null}
        {isAdmin || isSupport ? <CannedReplies canEdit={isAdmin} /> : null}
      </div>
    </PageShell>
  )
}

function TicketList({ filter, selected }: { filter: InboxFilter; selected: string | null }) {
  const inbox = useQuery(inboxQueryOptions(filter))
  if (useStaffRefusal(inbox.error) === 'not-found') return <NotFoundPage />
  if (inbox.isPending) return <Spinner label="Loading the inbox..." showLabel />
  if (inbox.isError) {
    return (
      <div role="alert" className="flex flex-col items-start gap-3">
        <p className="font-medium text-destructive">Unable to load the inbox</p>
        <Button variant="outline" onClick={() => void inbox.refetch()} disabled={inbox.isFetching}>
          <RefreshCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  }
  if (inbox.data.tickets.length === 0) return <p className="text-muted-foreground">Nothing here.</p>
  return (
    <ul className="divide-y rounded-lg border" aria-label="Support requests">
      {inbox.data.tickets.map((ticket) => (
        <li key={ticket.id} className={ticket.id === selected ? 'bg-muted' : undefined}>
          <Link
            to="/support"
            search={{ status: filter, ticket: ticket.id }}
            aria-current={ticket.id === selected ? 'true' : undefined}
            className="block space-y-1 p-3 focus-visible:outline-2 focus-visible:outline-offset-[-2px]"
          >
            <span className="flex flex-wrap items-center gap-2">
              <Badge variant={ticket.priority === 'basic' ? 'secondary' : 'default'}>{PRIORITY_NAMES[ticket.priority]}</Badge>
              <span className="font-medium">{ticket.memberName}</span>
              <span className="text-sm text-muted-foreground">{ticket.reference}</span>
              {ticket.overdue ? <Badge variant="destructive">Overdue</Badge> : null}
            </span>
            <span className="block text-sm">{SUPPORT_TOPIC_NAMES[ticket.topic]}</span>
            <span className="block text-sm text-muted-foreground">
              {ticket.firstRespondedAt ? (
                <>Last message {formatDateTime(ticket.lastMessageAt)}</>
              ) : (
                <>First reply due {formatDateTime(ticket.firstResponseDueAt)}</>
              )}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  )
}

function TicketDetail({ ticketId }: { ticketId: string }) {
  const ticket = useQuery(inboxTicketQueryOptions(ticketId))
  const refusal = useStaffRefusal(ticket.error)
  if (refusal === 'not-found') return <p role="alert">No request has that reference.</p>
  if (ticket.isPending) return <Spinner label="Loading the request..." showLabel />
  if (ticket.isError) return <p role="alert" className="font-medium text-destructive">{ticket.error instanceof Error ? ticket.error.message : 'Unable to load this request'}</p>
  return <TicketView ticket={ticket.data} />
}

function TicketView({ ticket }: { ticket: InboxTicketDetail }) {
  const queryClient = useQueryClient()
  const canned = useQuery(cannedRepliesQueryOptions())
  const [reply, setReply] = useState('')
  const [resolve, setResolve] = useState(false)
  const [note, setNote] = useState('')
  const cannedId = useId()
  const resolveId = useId()
  const statusId = useId()
  const updated = async (next: InboxTicketDetail) => {
    queryClient.setQueryData(supportKeys.inboxTicket(ticket.id), next)
    await queryClient.invalidateQueries({ queryKey: ['support', 'inbox'], exact: false, predicate: (query) => query.queryKey[2] !== 'ticket' })
  }
  const failed = (fields: string[]) => (error: unknown) => {
    if (isFieldError(error, fields)) return
    void toast({ title: 'Not saved', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })
  }
  const sendReply = useMutation({
    mutationFn: () => replyToTicket(ticket.id, { message: reply, status: resolve ? 'resolved' : 'waiting_on_member' }),
    onSuccess: async (next) => {
      await updated(next)
      setReply('')
      setResolve(false)
      void toast({ title: 'Reply sent', description: `${ticket.member.fullName} gets it by email and on their Help page.` })
    },
    onError: failed(['message']),
  })
  const saveNote = useMutation({
    mutationFn: () => addNote(ticket.id, note),
    onSuccess: async (next) => {
      await updated(next)
      setNote('')
      void toast({ title: 'Note added' })
    },
    onError: failed(['note']),
  })
  const changeStatus = useMutation({
    mutationFn: (status: SupportTicketStatus) => setTicketStatus(ticket.id, status),
    onSuccess: async (next) => {
      await updated(next)
      void toast({ title: `Marked ${SUPPORT_STATUS_NAMES[next.status].toLowerCase()}` })
    },
    onError: failed([]),
  })
  const { member } = ticket
  return (
    <div className="space-y-4">
      <header className="space-y-1">
        <h2 className="text-2xl font-semibold tracking-tight">
          {ticket.reference}: {SUPPORT_TOPIC_NAMES[ticket.topic]}
        </h2>
        <p className="flex flex-wrap items-center gap-2 text-sm text-muted-foreground">
          <Badge variant="secondary">{SUPPORT_STATUS_NAMES[ticket.status]}</Badge>
          Opened {formatDateTime(ticket.createdAt)} · first reply {ticket.firstRespondedAt ? `sent ${formatDateTime(ticket.firstRespondedAt)}` : `due ${formatDateTime(ticket.firstResponseDueAt)}`}
          {ticket.overdue ? <Badge variant="destructive">Overdue</Badge> : null}
        </p>
      </header>
      <SectionCard title="Member">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted-foreground">Name</dt>
          <dd>{member.fullName}</dd>
          <dt className="text-muted-foreground">Email</dt>
          <dd>
            {member.email} {member.emailConfirmed ? '(confirmed)' : '(not confirmed)'}
          </dd>
          <dt className="text-muted-foreground">Plan</dt>
          <dd>
            {member.plan ? PLAN_NAMES[member.plan] : 'No plan'}
            {member.subscriptionStatus ? ` (${member.subscriptionStatus.replace(/_/g, ' ')})` : ''}
            {member.paid ? '' : ' · no access to the paid screens'}
          </dd>
          <dt className="text-muted-foreground">Member since</dt>
          <dd>{formatDateTime(member.memberSince)}</dd>
          <dt className="text-muted-foreground">Phone</dt>
          <dd>{member.phoneVerified ? 'Verified' : 'Not verified'}</dd>
          <dt className="text-muted-foreground">Two-factor sign-in</dt>
          <dd>{member.twoFactorOn ? 'On' : 'Off'}</dd>
          <dt className="text-muted-foreground">Sent from</dt>
          <dd>
            {ticket.context.page ?? 'the Help page'}
            {ticket.context.errorCode ? ` · error ${ticket.context.errorCode}` : ''}
            {ticket.context.plan ? ` · on ${PLAN_NAMES[ticket.context.plan]} then` : ''}
          </dd>
        </dl>
      </SectionCard>
      <SectionCard title="Conversation">
        <ol className="space-y-3" aria-label="Messages and notes">
          {ticket.messages.map((entry) => (
            <li
              key={entry.id}
              className={
                entry.kind === 'note' ? 'rounded-lg border border-dashed border-amber-500 bg-amber-50 p-3' : entry.kind === 'reply' ? 'rounded-lg border p-3' : 'rounded-lg bg-muted p-3'
              }
            >
              <p className="text-sm font-semibold">
                {entry.kind === 'member' ? member.fullName : entry.kind === 'reply' ? `${entry.authorName ?? 'Support'} replied` : `Internal note by ${entry.authorName ?? 'support'}`}{' '}
                <span className="font-normal text-muted-foreground">· {formatDateTime(entry.at)}</span>
              </p>
              <p className="mt-1 whitespace-pre-wrap break-words">{entry.body}</p>
            </li>
          ))}
        </ol>
      </SectionCard>
      <SectionCard title="Reply to the member" description="They get it by email and on their Help page.">
        <form
          noValidate
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault()
            sendReply.mutate()
          }}
        >
          {canned.data && canned.data.length > 0 ? (
            <Field id={cannedId} label="Start from a canned reply">
              {(control) => (
                <NativeSelect
                  {...control}
                  value=""
                  onChange={(event) => {
                    const chosen = canned.data.find((item) => item.id === event.target.value)
                    if (chosen) setReply(chosen.body)
                  }}
                >
                  <option value="">Choose one</option>
                  {canned.data.map((item) => (
                    <option key={item.id} value={item.id}>
                      {item.title}
                    </option>
                  ))}
                </NativeSelect>
              )}
            </Field>
          ) : null}
          <MessageField label="Reply" value={reply} onChange={setReply} error={errorFor(sendReply.error, 'message')} />
          <div className="flex items-center gap-2">
            <Checkbox id={resolveId} checked={resolve} onChange={(event) => setResolve(event.target.checked)} />
            <Label htmlFor={resolveId}>Mark as resolved</Label>
          </div>
          <Button type="submit" disabled={sendReply.isPending}>
            {sendReply.isPending ? 'Sending…' : 'Send reply'}
          </Button>
        </form>
      </SectionCard>
      <SectionCard title="Internal note" description="Only support staff see notes; the member never does.">
        <form
          noValidate
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault()
            saveNote.mutate()
          }}
        >
          <MessageField label="Note" value={note} onChange={setNote} error={errorFor(saveNote.error, 'note')} rows={3} />
          <Button type="submit" variant="outline" disabled={saveNote.isPending}>
            Add note
          </Button>
        </form>
      </SectionCard>
      <div className="flex items-center gap-2">
        <Label htmlFor={statusId}>Status</Label>
        <NativeSelect id={statusId} className="w-auto" value={ticket.status} disabled={changeStatus.isPending} onChange={(event) => changeStatus.mutate(event.target.value as SupportTicketStatus)}>
          {SUPPORT_TICKET_STATUSES.map((status) => (
            <option key={status} value={status}>
              {FILTER_NAMES[status]}
            </option>
          ))}
        </NativeSelect>
      </div>
    </div>
  )
}

function CannedReplies({ canEdit }: { canEdit: boolean }) {
  const queryClient = useQueryClient()
  const replies = useQuery(cannedRepliesQueryOptions())
  const [title, setTitle] = useState('')
  const [body, setBody] = useState('')
  const titleId = useId()
  const create = useMutation({
    mutationFn: () => createCannedReply({ title, body }),
    onSuccess: async () => {
      setTitle('')
      setBody('')
      await queryClient.invalidateQueries({ queryKey: supportKeys.canned })
      void toast({ title: 'Canned reply saved' })
    },
    onError: (error) => {
      if (isFieldError(error, ['title', 'body'])) return
      void toast({ title: 'Not saved', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })
    },
  })
  const remove = useMutation({
    mutationFn: (id: string) => deleteCannedReply(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: supportKeys.canned }),
    onError: (error) => void toast({ title: 'Not deleted', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' }),
  })
  return (
    <SectionCard title="Canned replies" description={canEdit ? 'Replies support can start from. Administrators keep this list.' : 'Replies you can start from; administrators keep this list.'}>
      {replies.data && replies.data.length > 0 ? (
        <ul className="mb-4 divide-y" aria-label="Canned replies">
          {replies.data.map((item) => (
            <li key={item.id} className="flex items-start justify-between gap-3 py-2">
              <div className="min-w-0">
                <p className="font-medium">{item.title}</p>
                <p className="line-clamp-2 text-sm text-muted-foreground">{item.body}</p>
              </div>
              {canEdit ? (
                <Button variant="outline" size="sm" onClick={() => remove.mutate(item.id)} aria-label={`Delete ${item.title}`}>
                  Delete
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="mb-4 text-muted-foreground">None yet.</p>
      )}
      {canEdit ? (
        <form
          noValidate
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault()
            create.mutate()
          }}
        >
          <Field id={titleId} label="Title" error={errorFor(create.error, 'title')}>
            {(control) => <Input {...control} value={title} maxLength={80} onChange={(event) => setTitle(event.target.value)} />}
          </Field>
          <MessageField label="Canned reply" value={body} onChange={setBody} error={errorFor(create.error, 'body')} rows={3} />
          <Button type="submit" variant="outline" disabled={create.isPending}>
            Save canned reply
          </Button>
        </form>
      ) : null}
    </SectionCard>
  )
}
