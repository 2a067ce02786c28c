/**
 * /opt-in: text START to the fixed number (from SMS_OPT_IN_NUMBER on the server);
 * STOP opts out; standard message and data rates may apply. 'I've completed this step' shows
 * 'Processing...' for 1 s, records the opt-in on the server (the time and the exact text shown),
 * shows the 'Success' toast and goes to /goal-intake. The person is trusted to have sent the text.
 * The screen also listens: when the START text from the person's own number reaches the server
 * while it is open, it says so and moves on by itself (issue 15).
 * No user → /auth; payment not completed → /payment (the server refuses too).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { CheckCircle2Icon, MessageSquareTextIcon, SmartphoneIcon } from 'lucide-react'
import { useEffect, useState } from 'react'
import type { SessionUser } from '#common/auth'
import { optInSentences } from '#common/opt-in'
import { PageShell } from '#web/features/navigation/page-shell'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { authKeys } from '#web/features/auth/api'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { optInQueryOptions, recordOptIn } from './api'
import { useStartText } from './use-start-text'

/** Spec 1 §9: the opt-in button shows Processing... for 1 s. */
const OPT_IN_PROCESSING_MS = 1000
/** How long the screen shows that the START text arrived before it moves on. */
const TEXT_ARRIVED_MS = 1500

const delay = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms))

export function OptInPage() {
  useDocumentTitle('Text Message Updates')
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const state = useQuery(optInQueryOptions())
  const [processing, setProcessing] = useState(false)
  const [arrived, setArrived] = useState(false)
  async function textArrived() {
    if (arrived) return
    setArrived(true)
    queryClient.setQueryData<SessionUser | null>(authKeys.me, (user) => (user ? { ...user, hasOptedIn: true } : user))
    void queryClient.invalidateQueries({ queryKey: optInQueryOptions().queryKey })
    await delay(TEXT_ARRIVED_MS)
    void toast({ title: 'Success', description: "You're all set! You'll now receive important updates via text." })
    await navigate({ to: '/goal-intake' })
  }

  useStartText({
    enabled: state.isSuccess && !processing && !arrived,
    onArrived: () => void textArrived(),
    // Listening now: a START that came in while the screen opened turned the state on.
    onListening: () => {
      if (state.data?.opted_in !== false) return
      void state.refetch().then((result) => {
        if (result.data?.opted_in) void textArrived()
      })
    },
  })

  // The server decides: no session → /auth, no payment → /payment.
  const refusal = isApiError(state.error) ? state.error.status : null
  useEffect(() => {
    if (refusal === 401) void navigate({ to: '/auth', replace: true })
    if (refusal === 403) void navigate({ to: '/payment', replace: true })
  }, [navigate, refusal])

  async function confirm() {
    if (!state.data) return
    setProcessing(true)
    try {
      const [result] = await Promise.all([
        recordOptIn(state.data.consent_text),
        delay(OPT_IN_PROCESSING_MS),
      ])
      queryClient.setQueryData<SessionUser | null>(authKeys.me, (user) => (user ? { ...user, hasOptedIn: true } : user))
      queryClient.setQueryData(optInQueryOptions().queryKey, { ...state.data, opted_in: true, opted_in_at: result.opted_in_at })
      void toast({ title: 'Success', description: "You're all set! You'll now receive important updates via text." })
      await navigate({ to: '/goal-intake' })
    } catch (error) {
      setProcessing(false)
      if (isApiError(error) && error.status === 403) return void navigate({ to: '/payment', replace: true })
      if (isApiError(error) && error.status === 401) return void navigate({ to: '/auth', replace: true })
      if (isApiError(error) && error.is('CONSENT_TEXT_CHANGED')) void state.refetch()
      void toast({
        title: "We couldn't save your opt-in",
        description: error instanceof Error ? error.message : 'Please try again.',
        variant: 'destructive',
      })
    }
  }

  return (
    <PageShell mainClassName="px-4 py-12 sm:px-6 sm:py-16">
      <div className="mx-auto max-w-xl">
        <div className="text-center">
          <span className="mx-auto flex size-14 items-center justify-center rounded-full bg-secondary">
            <MessageSquareTextIcon className="size-7 text-brand-momentum" aria-hidden="true" />
          </span>
          <h1 className="mt-4 text-3xl font-bold tracking-tight sm:text-4xl">Get updates by text</h1>
          <p className="mt-3 text-lg text-muted-foreground">
            Your coach sends reminders and check-ins between calls. One text from you turns them on.
          </p>
        </div>

        {state.isPending || refusal === 401 || refusal === 403 ? (
          <div className="mt-10 flex justify-center">
            <Spinner size="lg" label="Loading" />
          </div>
        ) : state.isError ? (
          <div role="alert" className="mt-10 flex flex-col items-center gap-4 rounded-xl border bg-muted px-6 py-8 text-center">
            <p className="font-medium">We couldn't load this step just now.</p>
            <Button variant="outline" onClick={() => void state.refetch()} disabled={state.isFetching}>
              {state.isFetching ? 'Trying again…' : 'Try again'}
            </Button>
          </div>
        ) : (
          <OptInInstructions
            phoneNumber={state.data.phone_number}
            displayNumber={state.data.display_number}
            keyword={state.data.keyword}
            processing={processing}
            arrived={arrived}
            onConfirm={() => void confirm()}
          />
        )}
      </div>
    </PageShell>
  )
}

function OptInInstructions(props: {
  phoneNumber: string
  displayNumber: string
  keyword: string
  processing: boolean
  arrived: boolean
  onConfirm: () => void
}) {
  // The same sentences the server records as the consent text.
  const { instruction, optOut, rates } = optInSentences(props.phoneNumber)
  return (
    <Card className="mt-10">
      <CardContent className="flex flex-col gap-6">
        <div className="flex flex-col items-center gap-2 rounded-lg bg-secondary px-4 py-6 text-center">
          <SmartphoneIcon className="size-6 text-brand-coach" aria-hidden="true" />
          <p className="text-sm text-muted-foreground">Text the word</p>
          <p className="font-mono text-3xl font-extrabold tracking-widest">{props.keyword}</p>
          <p className="text-sm text-muted-foreground">to</p>
          <a
            href={`sms:${props.phoneNumber}?body=${props.keyword}`}
            className="rounded-sm text-2xl font-bold text-primary underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            {props.displayNumber}
          </a>
        </div>
        <div role="status" aria-live="polite">
          {props.arrived ? (
            <p className="flex items-center justify-center gap-2 rounded-lg border border-emerald-600/30 bg-emerald-50 px-4 py-3 text-sm font-medium text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
              <CheckCircle2Icon className="size-5 shrink-0" aria-hidden="true" />
              Your {props.keyword} text arrived. Taking you to the next step…
            </p>
          ) : null}
        </div>
        <div className="space-y-2 text-sm" data-testid="opt-in-consent">
          <p>{instruction}</p>
          <p>{optOut}</p>
          <p className="text-muted-foreground">{rates}</p>
        </div>
        <Button size="lg" onClick={props.onConfirm} disabled={props.processing || props.arrived}>
          <PendingLabel pending={props.processing} idle="I've completed this step" busy="Processing..." />
        </Button>
      </CardContent>
    </Card>
  )
}
