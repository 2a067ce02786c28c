import { Link } from '@tanstack/react-router'
import { PhoneCallIcon, RotateCwIcon, TargetIcon, TrendingUpIcon } from 'lucide-react'
import { useId, type ReactNode } from 'react'
import { SATISFACTION_MAX } from '#common/domain'
import { type CoachingCallView } from '#common/calls'
import { callMinutes } from '#common/dashboard'
import { LIFE_AREA_STEPS, areaShortLabel, lifeAreaDefinition, type GoalRecord } from '#common/goals'
import type { LifeArea } from '#common/domain'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { Progress } from '#web/components/ui/progress'
import { Spinner } from '#web/components/ui/spinner'
import { callKindLabel, lateText, statusText } from '#web/features/calls/format'

type PanelProps = { failed: boolean; onRetry: () => void }

function Panel({ title, icon, children }: { title: string; icon: ReactNode; children: ReactNode }) {
  const id = useId()
  return (
    <Card aria-labelledby={id} role="region">
      <CardHeader>
        <CardTitle as="h2" id={id} className="flex items-center gap-2">
          {icon}
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  )
}

/** A failed panel: the spec's text and a 'Try Again' that reloads only this panel's data. */
function PanelError({ text, onRetry }: { text: string; onRetry: () => void }) {
  return (
    <div className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-destructive/40 bg-destructive/5 p-4">
      <p className="text-sm font-medium text-destructive">{text}</p>
      <Button variant="outline" size="sm" onClick={onRetry}>
        <RotateCwIcon aria-hidden="true" />
        Try Again
      </Button>
    </div>
  )
}

function PanelLoading({ label }: { label: string }) {
  return (
    <div className="flex justify-center py-6">
      <Spinner label={label} />
    </div>
  )
}

/** 'Life Areas Progress': a bar and score/10 per area, under the eight short labels. */
export function LifeAreasPanel({ goals, failed, onRetry }: PanelProps & { goals: GoalRecord[] | undefined }) {
  const icon = <TrendingUpIcon className="size-5 text-primary" aria-hidden="true" />
  if (failed) {
    return (
      <Panel title="Life Areas Progress" icon={icon}>
        <PanelError text="Unable to load goals data" onRetry={onRetry} />
      </Panel>
    )
  }
  if (!goals) {
    return (
      <Panel title="Life Areas Progress" icon={icon}>
        <PanelLoading label="Loading life areas" />
      </Panel>
    )
  }
  const scoreOf = (area: LifeArea) => goals.find((goal) => goal.lifeArea === area)?.satisfactionScore ?? 0
  return (
    <Panel title="Life Areas Progress" icon={icon}>
      <ul className="space-y-4">
        {LIFE_AREA_STEPS.map((area) => {
          const score = scoreOf(area.id)
          return (
            <li key={area.id} className="space-y-1.5" data-testid={`area-${area.id}`}>
              <div className="flex items-center justify-between text-sm">
                <span className="font-medium">{area.shortLabel}</span>
                <span className="text-muted-foreground">
                  {score}/{SATISFACTION_MAX}
                </span>
              </div>
              <Progress value={score} max={SATISFACTION_MAX} aria-label={`${area.shortLabel}: ${score} out of ${SATISFACTION_MAX}`} />
            </li>
          )
        })}
      </ul>
    </Panel>
  )
}

/** "This Week's Focus": up to three lowest-scored areas as Priority 1 to 3. */
export function FocusPanel({ areas, failed, onRetry }: PanelProps & { areas: Array<GoalRecord & { satisfactionScore: number }> | undefined }) {
  const icon = <TargetIcon className="size-5 text-primary" aria-hidden="true" />
  const title = "This Week's Focus"
  if (failed) {
    return (
      <Panel title={title} icon={icon}>
        <PanelError text="Unable to load focus areas" onRetry={onRetry} />
      </Panel>
    )
  }
  if (!areas) {
    return (
      <Panel title={title} icon={icon}>
        <PanelLoading label="Loading focus areas" />
      </Panel>
    )
  }
  if (areas.length === 0) {
    return (
      <Panel title={title} icon={icon}>
        <p className="text-muted-foreground">Great job! All areas are well balanced.</p>
      </Panel>
    )
  }
  return (
    <Panel title={title} icon={icon}>
      <ol className="space-y-3">
        {areas.map((area, index) => {
          const known = LIFE_AREA_STEPS.some((step) => step.id === area.lifeArea)
          const name = known ? lifeAreaDefinition(area.lifeArea as LifeArea).title : area.lifeArea
          return (
            <li key={area.lifeArea} className="flex items-center justify-between gap-3 rounded-lg border bg-muted/40 p-3">
              <div className="flex items-center gap-3">
                <Badge variant={index === 0 ? 'highlight' : 'secondary'}>Priority {index + 1}</Badge>
                <span className="font-medium">{name}</span>
              </div>
              <span className="text-sm text-muted-foreground">
                {area.satisfactionScore}/{SATISFACTION_MAX}
              </span>
            </li>
          )
        })}
      </ol>
    </Panel>
  )
}

/** 'Placed 4 minutes late: all our coaching lines were busy', for a phone call placed more than a minute late (docs/decisions/070). */
function PlacedLate({ call }: { call: CoachingCallView }) {
  const late = lateText(call.lateSeconds, call.lateReason)
  return late ? (
    <p className="text-sm text-muted-foreground" data-testid="call-late">
      {late}
    </p>
  ) : null
}

/** 'Recent Coaching Calls': the last 5 with date, minutes, areas and status; each opens its detail page. */
export function CallsPanel({
  calls,
  timeZone,
  failed,
  onRetry,
}: PanelProps & { calls: CoachingCallView[] | undefined; timeZone: string | undefined }) {
  const icon = <PhoneCallIcon className="size-5 text-primary" aria-hidden="true" />
  const title = 'Recent Coaching Calls'
  if (failed) {
    return (
      <Panel title={title} icon={icon}>
        <PanelError text="Unable to load coaching calls" onRetry={onRetry} />
      </Panel>
    )
  }
  if (!calls) {
    return (
      <Panel title={title} icon={icon}>
        <PanelLoading label="Loading coaching calls" />
      </Panel>
    )
  }
  if (calls.length === 0) {
    return (
      <Panel title={title} icon={icon}>
        <p className="text-muted-foreground">No calls yet. Your first coaching call will be scheduled soon!</p>
      </Panel>
    )
  }
  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', ...(timeZone ? { timeZone } : {}) })
  return (
    <Panel title={title} icon={icon}>
      <ul className="divide-y">
        {calls.map((call) => (
          <li key={call.id} className="flex flex-wrap items-center justify-between gap-3 py-3 first:pt-0 last:pb-0" data-testid="call-row">
            <div className="min-w-0 flex-1 space-y-1.5">
              <p className="font-medium">
                <Link
                  to="/calls/$callId"
                  params={{ callId: call.id }}
                  className="rounded-sm text-primary underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
                >
                  <time dateTime={call.callDate}>{dateFormat.format(new Date(call.callDate))}</time>
                  <span className="sr-only">: {callKindLabel(call.slot, call.kind)}, view details</span>
                </Link>
                <span className="text-muted-foreground"> · {callMinutes(call.callDuration)} min</span>
                {call.slot === 'evening' || call.slot === 'test' || call.slot === 'web' || call.kind === 'goal_session' ? (
                  <span className="text-muted-foreground" aria-hidden="true">
                    {' '}
                    · {callKindLabel(call.slot, call.kind)}
                  </span>
                ) : null}
              </p>
              <PlacedLate call={call} />
              {call.summary ? <p className="line-clamp-2 text-sm text-muted-foreground">{call.summary}</p> : null}
              {call.areasDiscussed.length > 0 ? (
                <ul className="flex flex-wrap gap-1.5" aria-label="Areas discussed">
                  {call.areasDiscussed.map((area) => (
                    <li key={area}>
                      <Badge variant="outline">{areaShortLabel(area)}</Badge>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
            <Badge variant={call.completionStatus === 'completed' ? 'default' : 'secondary'}>{statusText(call.completionStatus)}</Badge>
          </li>
        ))}
      </ul>
    </Panel>
  )
}
