/**
 * /debug/edge-functions: five test buttons for the server functions the app
 * depends on, each with its status (idle, loading, success, error), the duration in ms and the
 * JSON answer or the error; a debug panel about the signed-in user; 'Authentication Required'
 * when signed out. The names are the original server functions'; each maps to our /api.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ActivityIcon, LockIcon } from 'lucide-react'
import { useState, type ReactNode } from 'react'
import { formatPhone } from '#common/auth-constants'
import { VAPI_SECRET_HEADER } from '#common/webhooks'
import { PageShell } from '#web/features/navigation/page-shell'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { toast } from '#web/lib/toast'
import { meQueryOptions, type SessionUser } from '#web/features/auth/api'
import { SessionGate } from '#web/features/auth/components/session-gate'
import { callsDiagnosticsQueryOptions } from '#web/features/calls/api'
import { callFunction, FUNCTION_TESTS, type FunctionResult, type FunctionTest } from './api'

type Result = { state: 'idle' } | { state: 'loading' } | FunctionResult

export function DiagnosticsPage() {
  useDocumentTitle('Edge Functions Diagnostics')
  return (
    <SessionGate
      signedOut={
        <DiagnosticsShell>
          <SignedOut />
        </DiagnosticsShell>
      }
    >
      {(user) => (
        <DiagnosticsShell>
          <Diagnostics user={user} />
        </DiagnosticsShell>
      )}
    </SessionGate>
  )
}

function DiagnosticsShell({ children }: { children: ReactNode }) {
  return (
    <PageShell mainClassName="px-4 py-12 sm:px-6 sm:py-16">
      <div className="mx-auto max-w-4xl">{children}</div>
    </PageShell>
  )
}

function SignedOut() {
  return (
    <Card className="mx-auto max-w-lg">
      <CardContent className="flex flex-col items-center gap-4 text-center">
        <span className="flex size-14 items-center justify-center rounded-full bg-secondary">
          <LockIcon className="size-7 text-brand-momentum" aria-hidden="true" />
        </span>
        <h1 className="text-2xl font-bold tracking-tight">Authentication Required</h1>
        <p className="text-muted-foreground">Please sign in to access the Edge Functions Diagnostics page.</p>
        <Button asChild>
          <Link to="/auth" search={{ returnTo: '/debug/edge-functions' }}>
            Sign in
          </Link>
        </Button>
      </CardContent>
    </Card>
  )
}

function Diagnostics({ user }: { user: SessionUser }) {
  const me = useQuery(meQueryOptions())
  const [results, setResults] = useState<Record<string, Result>>({})

  async function run(test: FunctionTest) {
    if (!me.data) {
      void toast({ title: 'Please sign in to test edge functions', variant: 'destructive' })
      return
    }
    setResults((current) => ({ ...current, [test.name]: { state: 'loading' } }))
    const outcome = await callFunction(test)
    setResults((current) => ({ ...current, [test.name]: outcome.result }))
    if (outcome.result.state === 'success') {
      void toast({ title: `${test.name} completed successfully` })
    } else if (outcome.unauthenticated) {
      void toast({ title: 'Please sign in to test edge functions', variant: 'destructive' })
      void me.refetch()
    } else if (outcome.result.state === 'error') {
      void toast({ title: `${test.name} failed: ${outcome.result.message}`, variant: 'destructive' })
    }
  }

  return (
    <>
      <div className="flex items-start gap-3">
        <ActivityIcon className="mt-1.5 size-7 shrink-0 text-brand-coach" aria-hidden="true" />
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Edge Functions Diagnostics</h1>
          <p className="mt-2 text-muted-foreground">Run each server function the app depends on and see what it answers.</p>
        </div>
      </div>

      <Card className="mt-8">
        <CardHeader>
          <CardTitle as="h2">Debug information</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium">User ID</dt>
            <dd className="break-all font-mono">{user.id}</dd>
            <dt className="font-medium">Email</dt>
            <dd className="break-all">{user.email}</dd>
            <dt className="font-medium">Subscription</dt>
            <dd>{user.hasSubscription ? 'Yes' : 'No'}</dd>
            <dt className="font-medium">Phone</dt>
            <dd>{user.phoneNumber ? formatPhone(user.phoneNumber) : 'Not provided'}</dd>
            <dt className="font-medium">Opted in</dt>
            <dd>{user.hasOptedIn ? 'Yes' : 'No'}</dd>
          </dl>
        </CardContent>
      </Card>

      <ul className="mt-8 grid gap-6" aria-label="Function tests">
        {FUNCTION_TESTS.map((test) => (
          <li key={test.name}>
            <FunctionTestCard test={test} result={results[test.name] ?? { state: 'idle' }} onRun={() => void run(test)} />
          </li>
        ))}
      </ul>

      {user.hasSubscription ? <DailyCallsCard /> : null}
    </>
  )
}

/**
 * Whether daily calls can be placed here, what failed on our side (Vapi account, assistant, number)
 * in the last day, and Vapi's messages parked after failing every try (docs/decisions/071).
 */
function DailyCallsCard() {
  const diagnostics = useQuery(callsDiagnosticsQueryOptions())
  return (
    <Card className="mt-8" role="region" aria-labelledby="daily-calls-title">
      <CardHeader>
        <CardTitle as="h2" id="daily-calls-title">
          Daily calls
        </CardTitle>
        <CardDescription>Whether coaching calls can be placed, and problems with the voice provider in the last 24 hours.</CardDescription>
      </CardHeader>
      <CardContent aria-live="polite">
        {diagnostics.isPending ? (
          <Spinner label="Loading daily calls" showLabel />
        ) : diagnostics.isError ? (
          <p className="text-sm text-destructive" role="alert">
            Unable to load the daily calls' status.
          </p>
        ) : (
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium">Configured</dt>
            <dd>{diagnostics.data.configured ? 'Yes' : 'No: calls are not placed on this server'}</dd>
            <dt className="font-medium">Webhook URL</dt>
            <dd className="break-all font-mono">{diagnostics.data.webhookUrl}</dd>
            <dt className="font-medium">Webhook authentication</dt>
            <dd>{diagnostics.data.webhookAuth === 'hmac' ? 'HMAC signature' : diagnostics.data.webhookAuth === 'secret' ? `${VAPI_SECRET_HEADER} header` : 'Not set'}</dd>
            <dt className="font-medium">Problems (24 hours)</dt>
            <dd>
              {diagnostics.data.problems.length === 0 ? (
                'None'
              ) : (
                <ul className="grid gap-1">
                  {diagnostics.data.problems.map((problem) => (
                    <li key={problem.reason}>
                      <span className="font-mono">{problem.reason}</span>: {problem.count}, last at {new Date(problem.lastAt).toLocaleString()}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            <dt className="font-medium">Parked webhook messages</dt>
            <dd>
              {diagnostics.data.parkedMessages.count === 0 ? (
                'None'
              ) : (
                <>
                  <p>
                    {diagnostics.data.parkedMessages.count} could not be applied after repeated tries and are no longer retried
                    {diagnostics.data.parkedMessages.count > diagnostics.data.parkedMessages.latest.length ? '; the latest:' : ':'}
                  </p>
                  <ul className="mt-1 grid gap-1" aria-label="Parked webhook messages">
                    {diagnostics.data.parkedMessages.latest.map((message) => (
                      <li key={message.id}>
                        <span className="font-mono">
                          #{message.id} {message.type}
                        </span>
                        , received {new Date(message.receivedAt).toLocaleString()}, parked {new Date(message.parkedAt).toLocaleString()} after {message.attempts} tries
                        {message.lastError ? (
                          <>
                            : <span className="break-all font-mono">{message.lastError}</span>
                          </>
                        ) : null}
                      </li>
                    ))}
                  </ul>
                </>
              )}
            </dd>
            <dt className="font-medium">Your last call</dt>
            <dd>
              {diagnostics.data.lastCall
                ? `${new Date(diagnostics.data.lastCall.callDate).toLocaleString()}: ${diagnostics.data.lastCall.completionStatus.replaceAll('_', ' ')}${diagnostics.data.lastCall.endedReason ? ` (${diagnostics.data.lastCall.endedReason})` : ''}`
                : 'None yet'}
            </dd>
          </dl>
        )}
      </CardContent>
    </Card>
  )
}

const STATUS_LABEL = { idle: 'Idle', loading: 'Loading', success: 'Success', error: 'Error' } as const
const STATUS_VARIANT = { idle: 'outline', loading: 'secondary', success: 'accent', error: 'destructive' } as const

function FunctionTestCard({ test, result, onRun }: { test: FunctionTest; result: Result; onRun: () => void }) {
  const titleId = `test-${test.name}-title`
  return (
    <Card role="group" aria-labelledby={titleId} data-testid={`function-${test.name}`}>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3">
        <div>
          <CardTitle as="h2" id={titleId} className="font-mono text-lg">
            {test.name}
          </CardTitle>
          <CardDescription>{test.description}</CardDescription>
        </div>
        <div className="flex items-center gap-3">
          <Badge variant={STATUS_VARIANT[result.state]} aria-label={`Status: ${STATUS_LABEL[result.state]}`}>
            {STATUS_LABEL[result.state]}
          </Badge>
          {'durationMs' in result ? <span className="text-sm text-muted-foreground tabular-nums">{result.durationMs} ms</span> : null}
          <Button size="sm" onClick={onRun} disabled={result.state === 'loading'} aria-label={`Test ${test.name}`}>
            {result.state === 'loading' ? 'Testing...' : 'Test'}
          </Button>
        </div>
      </CardHeader>
      <CardContent aria-live="polite">
        {result.state === 'success' ? (
          <pre className="max-h-64 overflow-auto rounded-md bg-muted p-3 text-xs" tabIndex={0} aria-label={`${test.name} response`}>
            {JSON.stringify(result.json, null, 2)}
          </pre>
        ) : result.state === 'error' ? (
          <p className="rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive" role="alert">
            {result.message}
          </p>
        ) : result.state === 'loading' ? (
          <Spinner label={`Testing ${test.name}`} showLabel />
        ) : (
          <p className="text-sm text-muted-foreground">Not run yet.</p>
        )}
      </CardContent>
    </Card>
  )
}
