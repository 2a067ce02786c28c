/**
 * /messages (docs/decisions/079): an Elite member's thread with their coach. The coach's hours and
 * reply promise are shown; new messages and read receipts arrive live (the thread's event stream).
 * Words about suicide or self-harm are answered at once with where help is.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { CoachThreadEvent, CoachThreadResponse } from '#common/coach'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { myThreadQueryOptions, sendMyMessage, threadKeys } from './api'
import { MessageBox, ThreadMessages } from './thread'
import { useThreadEvents } from './use-thread-events'

export function MessagesPage() {
  useDocumentTitle('Messages with your coach')
  const queryClient = useQueryClient()
  const thread = useQuery(myThreadQueryOptions())
  const [crisis, setCrisis] = useState<string | null>(null)
  useThreadEvents('/api/coach/messages/stream', {
    enabled: thread.isSuccess,
    onListening: () => void queryClient.invalidateQueries({ queryKey: threadKeys.mine }),
    onEvent: (event: CoachThreadEvent) => {
      // A message from the coach: read it again (which marks it read); a receipt: the same.
      if (event.type === 'coach-message' && event.message.from === 'member') return append(event.message)
      void queryClient.invalidateQueries({ queryKey: threadKeys.mine })
    },
  })
  const append = (message: CoachThreadResponse['messages'][number]) =>
    queryClient.setQueryData<CoachThreadResponse>(threadKeys.mine, (current) =>
      current && !current.messages.some((held) => held.id === message.id) ? { ...current, messages: [...current.messages, message] } : current,
    )
  const send = useMutation({
    mutationFn: (body: string) => sendMyMessage(body),
    onSuccess: (result) => {
      append(result.message)
      setCrisis(result.crisisResources)
    },
    onError: (error) => (isApiError(error) && error.field === 'body' ? undefined : void toast({ title: 'Message not sent', description: error.message, variant: 'destructive' })),
  })

  let body: React.ReactNode
  if (thread.isPending) body = <Spinner size="lg" label="Loading your messages..." showLabel />
  else if (thread.isError) {
    const forbidden = isApiError(thread.error) && thread.error.status === 403
    body = (
      <div role="alert" className="space-y-3">
        <p className="font-medium">{thread.error instanceof Error ? thread.error.message : 'Unable to load your messages.'}</p>
        {forbidden ? (
          <Button asChild variant="outline">
            <Link to="/payment">See the plans</Link>
          </Button>
        ) : null}
      </div>
    )
  } else {
    const { coach, messages } = thread.data
    body = (
      <>
        <p className="text-muted-foreground">
          {coach.replyPromise} Working hours: {coach.hoursText}
        </p>
        {crisis ? (
          <p role="alert" className="rounded-lg border border-destructive p-4 font-medium">
            {crisis}
          </p>
        ) : null}
        <SectionCard title="Conversation">
          <ThreadMessages messages={messages} me="member" names={{ member: 'You', coach: coach.fullName }} />
        </SectionCard>
        <SectionCard title={`Write to ${coach.fullName.split(/\s+/)[0]}`}>
          <MessageBox label="Your message" pending={send.isPending} error={isApiError(send.error) && send.error.field === 'body' ? send.error.message : undefined} onSend={(text) => send.mutateAsync(text)} />
        </SectionCard>
      </>
    )
  }
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <h1 className="text-3xl font-bold tracking-tight">Messages with your coach</h1>
        {body}
      </div>
    </PageShell>
  )
}
