import { Link } from '@tanstack/react-router'
import { PhoneCallIcon, PhoneOffIcon } from 'lucide-react'
import { useEffect, useId, useRef } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { endedReasonText } from '#web/features/calls/format'
import { liveStatusText } from './live-call-state'
import type { LiveCallHandle } from './use-live-call'

/**
 * The dashboard's "Live call" card, shown while a phone call of the person's is live (and after
 * it ended, until dismissed): ringing or in progress, the rolling transcript of final lines (a log
 * region: screen readers announce new lines), and "End call".
 */
export function LiveCallCard({ live }: { live: LiveCallHandle }) {
  const titleId = useId()
  const logRef = useRef<HTMLDivElement>(null)
  const { call } = live
  const lineCount = call?.lines.length ?? 0

  // The newest line stays in view.
  useEffect(() => {
    const log = logRef.current
    if (log) log.scrollTop = log.scrollHeight
  }, [lineCount, call?.lines])

  if (!call) return null
  const ended = call.status === 'ended'

  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4 border-primary/40" data-testid="live-call-card">
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          {ended ? <PhoneOffIcon className="size-5 text-muted-foreground" aria-hidden="true" /> : <PhoneCallIcon className="size-5 text-primary" aria-hidden="true" />}
          Live call
        </CardTitle>
        <p role="status" className="text-sm font-medium" data-testid="live-call-status">
          {liveStatusText(call.status)}
          {ended ? `: ${endedReasonText(call.endedReason)}` : call.ending ? ' (ending…)' : ''}
        </p>
      </CardHeader>
      <CardContent className="space-y-4">
        {lineCount > 0 ? (
          <div
            ref={logRef}
            role="log"
            aria-live="polite"
            aria-label="Live transcript"
            // Scrollable, so reachable from the keyboard.
            tabIndex={0}
            className="max-h-64 overflow-y-auto rounded-md border bg-muted/30 p-3 text-sm focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
            data-testid="live-transcript"
          >
            <ol className="space-y-2">
              {call.lines.map((line) => (
                <li key={line.id}>
                  <span className="font-semibold">{line.role === 'assistant' ? 'Coach' : 'You'}:</span> {line.text}
                </li>
              ))}
            </ol>
          </div>
        ) : (
          <p className="text-sm text-muted-foreground">{ended ? 'Nothing was said.' : 'What you and your coach say appears here as you talk.'}</p>
        )}
        {call.endError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {call.endError}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          {ended ? (
            <>
              <Button asChild variant="outline">
                <Link to="/calls/$callId" params={{ callId: call.callId }}>
                  View call details
                </Link>
              </Button>
              <Button variant="ghost" onClick={live.dismiss}>
                Dismiss
              </Button>
            </>
          ) : (
            <Button variant="destructive" onClick={live.endCall} disabled={call.ending}>
              <PhoneOffIcon aria-hidden="true" />
              {call.ending ? 'Ending call…' : 'End call'}
            </Button>
          )}
        </div>
      </CardContent>
    </Card>
  )
}
