/**
 * /sessions (docs/decisions/082): an Elite member's 1-on-1 sessions with their coach. The rule is
 * shown before booking; the coach's free slots are listed by day in the member's zone (the coach's
 * zone named); choosing one holds it for 5 minutes while they confirm. Booked sessions can be moved
 * or cancelled; after a session, the coach's summary and the commitments agreed show here.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useMemo, useState } from 'react'
import type { CoachSession, HoldResponse, SessionKind } from '#common/coach-sessions'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { PageShell } from '#web/features/navigation/page-shell'
import { cancelSession, confirmHold, dayLabel, holdSlot, mySessionsQueryOptions, sessionKeys, slotsQueryOptions, timeLabel } from './api'

type Picking = { kind: SessionKind; moving?: CoachSession | undefined }

const STATUS_WORDS: Record<CoachSession['status'], string> = { booked: 'Booked', cancelled: 'Cancelled', completed: 'Done', no_show: 'Missed' }

export function SessionsPage() {
  useDocumentTitle('Your 1-on-1 sessions')
  const sessions = useQuery(mySessionsQueryOptions())
  const [picking, setPicking] = useState<Picking | null>(null)

  let body: React.ReactNode
  if (sessions.isPending) body = <Spinner size="lg" label="Loading your sessions..." showLabel />
  else if (sessions.isError) {
    const forbidden = isApiError(sessions.error) && sessions.error.status === 403
    body = (
      <div role="alert" className="space-y-3">
        <p className="font-medium">{sessions.error instanceof Error ? sessions.error.message : 'Unable to load your sessions.'}</p>
        {forbidden ? (
          <Button asChild variant="outline">
            <Link to="/payment">See the plans</Link>
          </Button>
        ) : null}
      </div>
    )
  } else {
    const data = sessions.data
    const upcoming = data.sessions.filter((session) => session.status === 'booked')
    const past = data.sessions.filter((session) => session.status !== 'booked').reverse()
    const zone = data.memberTimeZone
    body = (
      <>
        <p className="text-muted-foreground">{data.rule}</p>
        {data.onboarding.offered && data.onboarding.until ? (
          <SectionCard title="Your onboarding session">
            <p>
              Meet {data.coach.fullName} for 45 minutes to set up your goals and your call schedule together, by {dayLabel(data.onboarding.until, zone)}. It does not count as your monthly session.
            </p>
            <Button className="mt-3" onClick={() => setPicking({ kind: 'onboarding' })}>
              Book your onboarding session
            </Button>
          </SectionCard>
        ) : null}
        <SectionCard title="Upcoming">
          {upcoming.length === 0 ? <p className="text-muted-foreground">No session booked.</p> : null}
          <ul className="space-y-3">
            {upcoming.map((session) => (
              <UpcomingSession key={session.id} session={session} zone={zone} onMove={() => setPicking({ kind: session.kind, moving: session })} />
            ))}
          </ul>
          {data.month.used ? <p className="mt-3 text-muted-foreground">This month's session is used. You can book next month's.</p> : null}
          {!upcoming.some((session) => session.kind === 'monthly') && !picking ? (
            <Button className="mt-3" onClick={() => setPicking({ kind: 'monthly' })}>
              Book a session
            </Button>
          ) : null}
        </SectionCard>
        {picking ? <SlotPicker picking={picking} zone={zone} coachName={data.coach.fullName} onDone={() => setPicking(null)} /> : null}
        {past.length > 0 ? (
          <SectionCard title="Past sessions">
            <ul className="space-y-4">
              {past.map((session) => (
                <li key={session.id} className="space-y-1">
                  <p className="font-medium">
                    {dayLabel(session.startsAt, zone)}, {timeLabel(session.startsAt, zone)}: {STATUS_WORDS[session.status]}
                    {session.status === 'cancelled' && session.counts ? ' (counted as the month\u2019s session)' : ''}
                  </p>
                  {session.summary ? <p className="whitespace-pre-wrap">{session.summary}</p> : null}
                  {session.commitments.length > 0 ? (
                    <ul className="list-disc pl-6">
                      {session.commitments.map((commitment) => (
                        <li key={commitment}>{commitment}</li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              ))}
            </ul>
          </SectionCard>
        ) : null}
      </>
    )
  }
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <h1 className="text-3xl font-bold tracking-tight">Your 1-on-1 sessions</h1>
        {body}
      </div>
    </PageShell>
  )
}

function UpcomingSession({ session, zone, onMove }: { session: CoachSession; zone: string; onMove: () => void }) {
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState(false)
  const cancel = useMutation({
    mutationFn: () => cancelSession(session.id),
    onSuccess: () => {
      void toast({ title: 'Session cancelled', description: 'The cancellation is on its way to your calendar.' })
      void queryClient.invalidateQueries({ queryKey: ['coach-sessions'] })
    },
    onError: (error) => void toast({ title: 'Not cancelled', description: error.message, variant: 'destructive' }),
  })
  const label = session.kind === 'onboarding' ? 'Onboarding session' : '1-on-1 session'
  return (
    <li className="rounded-lg border p-4">
      <p className="font-medium">
        {label} with {session.coachName}: {dayLabel(session.startsAt, zone)} at {timeLabel(session.startsAt, zone)} ({zone})
      </p>
      <p className="text-sm text-muted-foreground">
        {timeLabel(session.startsAt, session.coachTimeZone)} for {session.coachName.split(/\s+/)[0]} ({session.coachTimeZone}).{' '}
        {session.meeting === 'video' && session.videoUrl ? (
          <a className="underline" href={session.videoUrl} target="_blank" rel="noreferrer">
            Join by video
          </a>
        ) : (
          `${session.coachName.split(/\s+/)[0]} will call your phone.`
        )}
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        {session.changeable ? (
          <Button variant="outline" onClick={onMove}>
            Move
          </Button>
        ) : null}
        {confirming ? (
          <>
            <p className="basis-full text-sm">{session.changeable ? 'Cancel this session? You can book another this month.' : 'Less than 24 hours to go: cancelling now counts as this month\u2019s session.'}</p>
            <Button variant="destructive" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
              Yes, cancel it
            </Button>
            <Button variant="ghost" onClick={() => setConfirming(false)}>
              Keep it
            </Button>
          </>
        ) : (
          <Button variant="ghost" onClick={() => setConfirming(true)}>
            Cancel session
          </Button>
        )}
      </div>
    </li>
  )
}

/** The coach's free slots by day (the member's zone); a choice is held for 5 minutes while they confirm. */
function SlotPicker({ picking, zone, coachName, onDone }: { picking: Picking; zone: string; coachName: string; onDone: () => void }) {
  const queryClient = useQueryClient()
  const slots = useQuery(slotsQueryOptions(picking.kind))
  const [day, setDay] = useState<string | null>(null)
  const [hold, setHold] = useState<HoldResponse | null>(null)
  const days = useMemo(() => {
    const byDay = new Map<string, string[]>()
    for (const slot of slots.data?.slots ?? []) {
      const key = dayLabel(slot.startsAt, zone)
      byDay.set(key, [...(byDay.get(key) ?? []), slot.startsAt])
    }
    return [...byDay.entries()]
  }, [slots.data, zone])
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['coach-sessions'] })
  const take = useMutation({
    mutationFn: (startsAt: string) => holdSlot({ startsAt, kind: picking.kind, movesSessionId: picking.moving?.id }),
    onSuccess: setHold,
    onError: (error) => {
      void toast({ title: 'That time is not available', description: error.message, variant: 'destructive' })
      void queryClient.invalidateQueries({ queryKey: sessionKeys.slots(picking.kind) })
    },
  })
  const confirm = useMutation({
    mutationFn: (holdId: string) => confirmHold(holdId),
    onSuccess: () => {
      void toast({ title: picking.moving ? 'Session moved' : 'Session booked', description: 'We emailed you the invitation for your calendar.' })
      refresh()
      onDone()
    },
    onError: (error) => {
      setHold(null)
      void toast({ title: 'Not booked', description: error.message, variant: 'destructive' })
      refresh()
    },
  })
  const chosenDay = days.find(([label]) => label === day) ?? days[0]
  return (
    <SectionCard title={picking.moving ? 'Choose a new time' : picking.kind === 'onboarding' ? 'Choose a time for your onboarding session' : 'Choose a time'}>
      {slots.data ? (
        <p className="text-sm text-muted-foreground">
          Times are in your time zone ({zone}); {coachName.split(/\s+/)[0]} works in {slots.data.coachTimeZone}.
        </p>
      ) : null}
      {slots.isPending ? <Spinner label="Loading open times..." showLabel /> : null}
      {slots.isError ? <p role="alert">{slots.error.message}</p> : null}
      {slots.data && days.length === 0 ? <p>No open times right now. Message your coach to find one.</p> : null}
      {hold ? (
        <div className="mt-3 space-y-3 rounded-lg border p-4" role="status">
          <p className="font-medium">
            {dayLabel(hold.startsAt, zone)} at {timeLabel(hold.startsAt, zone)} is held for you until {timeLabel(hold.expiresAt, zone)}.
          </p>
          <div className="flex gap-2">
            <Button disabled={confirm.isPending} onClick={() => confirm.mutate(hold.holdId)}>
              {picking.moving ? 'Confirm the new time' : 'Confirm booking'}
            </Button>
            <Button variant="ghost" onClick={() => setHold(null)}>
              Choose another time
            </Button>
          </div>
        </div>
      ) : chosenDay ? (
        <div className="mt-3 space-y-4">
          <div role="group" aria-label="Days" className="flex flex-wrap gap-2">
            {days.map(([label]) => (
              <Button key={label} size="sm" variant={label === chosenDay[0] ? 'default' : 'outline'} aria-pressed={label === chosenDay[0]} onClick={() => setDay(label)}>
                {label}
              </Button>
            ))}
          </div>
          <div role="group" aria-label={`Times on ${chosenDay[0]}`} className="flex flex-wrap gap-2">
            {chosenDay[1].map((startsAt) => (
              <Button key={startsAt} size="sm" variant="outline" disabled={take.isPending} aria-label={`${chosenDay[0]} at ${timeLabel(startsAt, zone)}`} onClick={() => take.mutate(startsAt)}>
                {timeLabel(startsAt, zone)}
              </Button>
            ))}
          </div>
        </div>
      ) : null}
      <Button variant="ghost" className="mt-3" onClick={onDone}>
        Close
      </Button>
    </SectionCard>
  )
}
