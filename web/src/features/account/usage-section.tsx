/**
 * The account page's "This month in the app" (docs/decisions/061): the plan's voice minutes in the
 * app and messages to the coach, used and left this month, the day they come back, and the daily
 * limits under them, all counted in the person's time zone. The daily coaching calls are not
 * counted here.
 */
import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import type { AccountUsageResponse, UsageAmount } from '#common/usage'
import { SectionCard } from '#web/components/section-card'
import { Progress } from '#web/components/ui/progress'
import { Spinner } from '#web/components/ui/spinner'
import { usageQueryOptions } from './api'
import { comesBackOn, counted, minutesOf } from './usage-format'

export function UsageSection() {
  const usage = useQuery(usageQueryOptions())
  return (
    <SectionCard
      title="This month in the app"
      description="What your plan includes each month for talking to your coach in the app, and what is left. Your daily coaching calls are not counted here."
      data-testid="usage-section"
    >
      {usage.isError ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          Unable to load what is left this month. Please reload the page.
        </p>
      ) : !usage.data ? (
        <Spinner label="Loading what is left this month..." showLabel />
      ) : (
        <UsageFigures usage={usage.data} />
      )}
    </SectionCard>
  )
}

function UsageFigures({ usage }: { usage: AccountUsageResponse }) {
  const voice = minutesOf(usage.month.voiceSeconds)
  const voiceToday = minutesOf(usage.today.voiceSeconds)
  const day = comesBackOn(usage.month.resetsAt, usage.timeZone)
  return (
    <div className="space-y-5">
      <dl className="grid gap-5 sm:grid-cols-2">
        <Budget label="Voice minutes" amount={voice} left={counted(voice.left, 'minute left', 'minutes left')} />
        <Budget label="Messages to your coach" amount={usage.month.chatTurns} left={counted(usage.month.chatTurns.left, 'message left', 'messages left')} />
      </dl>
      <p className="font-medium">They come back on {day}.</p>
      <p className="text-sm text-muted-foreground">
        Each day you can use up to {counted(voiceToday.limit, 'voice minute', 'voice minutes')} and send up to{' '}
        {counted(usage.today.chatTurns.limit, 'message', 'messages')} (left today: {counted(voiceToday.left, 'minute', 'minutes')} and{' '}
        {counted(usage.today.chatTurns.left, 'message', 'messages')}). One voice call lasts at most {counted(usage.callCeilingSeconds / 60, 'minute', 'minutes')}. Counted in
        your time zone ({usage.timeZone}).
      </p>
    </div>
  )
}

/** One budget: what is left, what was used of the limit, and a bar named by its label. */
function Budget({ label, amount, left }: { label: string; amount: UsageAmount; left: string }) {
  const id = useId()
  return (
    <div className="space-y-2">
      <dt id={id} className="text-sm text-muted-foreground">
        {label}
      </dt>
      <dd className="space-y-2">
        <p>
          <span className="font-medium">{left}</span>
          <span className="text-muted-foreground">
            {' '}
            ({amount.used.toLocaleString('en-US')} of {amount.limit.toLocaleString('en-US')} used)
          </span>
        </p>
        <Progress value={amount.used} max={Math.max(1, amount.limit)} aria-labelledby={id} aria-valuetext={`${amount.used} of ${amount.limit} used`} />
      </dd>
    </div>
  )
}
