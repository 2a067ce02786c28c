/**
 * The person's consent, on the call schedule page (issue 15): whether texts and weekly report
 * emails are on (texts are turned off here, and back on by texting START), and the history of every
 * grant and revocation of calls, texts and report emails, with where it came from and the exact words.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useId } from 'react'
import type { ConsentChannel, ConsentResponse, ConsentSource } from '#common/consent'
import { Button } from '#web/components/ui/button'
import { SectionCard } from '#web/components/section-card'
import { Label } from '#web/components/ui/label'
import { Spinner } from '#web/components/ui/spinner'
import { Switch } from '#web/components/ui/switch'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { consentKeys, consentQueryOptions, setConsent } from './api'
import { formatDateTime } from '#web/lib/date-time'

const CHANNEL_LABELS: Record<ConsentChannel, string> = { calls: 'Coaching calls', texts: 'Texts', report_emails: 'Weekly report emails' }
const SOURCE_LABELS: Record<ConsentSource, string> = {
  sign_up: 'at sign-up',
  opt_in_screen: 'on the text opt-in screen',
  settings: 'in your settings',
  inbound_text: 'by text message',
  email_unsubscribe: 'from a report email',
  carrier_opt_out: 'by your carrier (you had opted out of our number)',
}

export function ConsentSection() {
  const query = useQuery(consentQueryOptions())
  return (
    <SectionCard title="Texts and consent" description="What we may send you, and every choice you made about it.">
      {query.isPending ? (
        <Spinner label="Loading your consent..." showLabel />
      ) : query.isError ? (
        <div role="alert" className="flex flex-col items-start gap-3">
          <p className="font-medium text-destructive">Unable to load your consent</p>
          <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
            Try Again
          </Button>
        </div>
      ) : (
        <ConsentLoaded consent={query.data} />
      )}
    </SectionCard>
  )
}

function ConsentLoaded({ consent }: { consent: ConsentResponse }) {
  const queryClient = useQueryClient()
  const ids = { texts: useId(), emails: useId(), history: useId() }
  const change = useMutation({
    mutationFn: ({ channel, enabled }: { channel: 'texts' | 'report_emails'; enabled: boolean }) => setConsent(channel, enabled),
    onSuccess: (saved, { channel, enabled }) => {
      queryClient.setQueryData(consentKeys.all, saved)
      void toast({ title: `${CHANNEL_LABELS[channel]} turned ${enabled ? 'on' : 'off'}` })
    },
    onError: (error) => {
      void toast({ title: "We couldn't save that", description: isApiError(error) ? error.message : 'Please try again.', variant: 'destructive' })
    },
  })
  const texts = consent.channels.texts.granted
  const unreachable = consent.texts_undeliverable
  return (
    <div className="space-y-6">
      <div className="space-y-2">
        <p className="text-sm font-medium" id={ids.texts}>
          Texts: <span data-testid="texts-state">{texts ? 'On' : 'Off'}</span>
        </p>
        {texts ? (
          <div className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-muted-foreground">Call recaps, missed-call notices and your weekly report link, at most 3 a day, 8 AM to 9 PM.</p>
            <Button variant="outline" size="sm" disabled={change.isPending} onClick={() => change.mutate({ channel: 'texts', enabled: false })} aria-describedby={ids.texts}>
              Turn texts off
            </Button>
          </div>
        ) : (
          <p className="text-sm text-muted-foreground">
            To get texts, text <strong>START</strong> to{' '}
            <a className="font-medium text-primary underline-offset-4 hover:underline" href={`sms:${consent.sms_number}?body=START`}>
              {consent.display_number}
            </a>
            .
          </p>
        )}
        {unreachable ? (
          <p className="text-sm text-destructive" data-testid="texts-unreachable">
            Our texts cannot reach {unreachable.display_number}: {unreachable.reason}. None will be sent to it. To get texts, change your
            phone number on the{' '}
            <Link to="/account" className="font-medium underline underline-offset-4">
              account page
            </Link>
            , or text <strong>START</strong> from this number if it can take texts.
          </p>
        ) : null}
      </div>

      <div className="flex items-center gap-3">
        <Switch
          id={ids.emails}
          checked={consent.channels.report_emails.granted}
          disabled={change.isPending}
          aria-describedby={`${ids.emails}-state`}
          onCheckedChange={(enabled) => change.mutate({ channel: 'report_emails', enabled })}
        />
        <Label htmlFor={ids.emails}>Weekly report emails</Label>
        <span id={`${ids.emails}-state`} className="text-sm text-muted-foreground">
          {consent.channels.report_emails.granted ? 'On' : 'Off'}
        </span>
      </div>

      <div className="space-y-2">
        <h3 className="text-base font-semibold" id={ids.history}>
          Consent history
        </h3>
        {consent.history.length === 0 ? (
          <p className="text-sm text-muted-foreground">Nothing recorded yet.</p>
        ) : (
          <ol aria-labelledby={ids.history} className="divide-y rounded-md border">
            {consent.history.map((row) => (
              <li key={row.id} className="space-y-1 px-3 py-2 text-sm">
                <p>
                  <span className="font-medium">
                    {CHANNEL_LABELS[row.channel]} {row.action === 'granted' ? 'turned on' : 'turned off'}
                  </span>{' '}
                  {SOURCE_LABELS[row.source]}, <time dateTime={row.at}>{formatDateTime(row.at)}</time>
                </p>
                <p className="text-muted-foreground">
                  <span className="sr-only">Words: </span>“{row.text}”
                </p>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  )
}
