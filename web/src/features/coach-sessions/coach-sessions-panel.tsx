/**
 * The coach's side of the 1-on-1 sessions (docs/decisions/082), in the workspace: their sessions
 * (with the member's number only around a phone session), how they meet, a no-show, the summary and
 * commitments after; and their hours for sessions with the booking rules.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { WEEKDAY_NAMES } from '#common/coach'
import type { Availability, CoachSideSession } from '#common/coach-sessions'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Textarea } from '#web/components/ui/textarea'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { errorFor } from '#web/features/support/support-form'
import { availabilityQueryOptions, coachSessionsQueryOptions, dayLabel, markNoShow, saveAvailability, sessionKeys, setMeeting, timeLabel, writeSummary } from './api'

const failed = (title: string) => (error: unknown) => void toast({ title, description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })

export function CoachSessionsPanel() {
  return (
    <>
      <SessionsList />
      <AvailabilityEditor />
    </>
  )
}

function SessionsList() {
  const sessions = useQuery(coachSessionsQueryOptions())
  return (
    <SectionCard title="1-on-1 sessions" description="Your members' booked sessions, in your time zone. A phone session shows the member's number from 15 minutes before it starts.">
      {sessions.isError ? <p role="alert">{sessions.error.message}</p> : null}
      {sessions.data?.length === 0 ? <p className="text-muted-foreground">No sessions booked.</p> : null}
      <ul className="space-y-4">
        {sessions.data?.map((session) => (
          <SessionItem key={session.id} session={session} />
        ))}
      </ul>
    </SectionCard>
  )
}

function SessionItem({ session }: { session: CoachSideSession }) {
  const queryClient = useQueryClient()
  const zone = session.coachTimeZone
  const refresh = () => void queryClient.invalidateQueries({ queryKey: sessionKeys.coach })
  const [videoUrl, setVideoUrl] = useState(session.videoUrl ?? '')
  const [summary, setSummary] = useState(session.summary ?? '')
  const [commitments, setCommitments] = useState(session.commitments.join('\n'))
  const ids = { video: useId(), summary: useId(), commitments: useId() }
  const meeting = useMutation({
    mutationFn: (body: { meeting: 'phone' | 'video'; videoUrl: string | null }) => setMeeting(session.id, body),
    onSuccess: () => {
      void toast({ title: 'Saved', description: 'The member has the updated invitation.' })
      refresh()
    },
    onError: (error) => (isApiError(error) && error.field === 'videoUrl' ? undefined : failed('Not saved')(error)),
  })
  const noShow = useMutation({ mutationFn: () => markNoShow(session.id), onSuccess: refresh, onError: failed('Not marked') })
  const write = useMutation({
    mutationFn: () => writeSummary(session.id, { summary, commitments: commitments.split('\n').map((line) => line.trim()).filter(Boolean) }),
    onSuccess: () => {
      void toast({ title: 'Summary saved', description: 'The member sees it with their sessions.' })
      refresh()
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : failed('Summary not saved')(error)),
  })
  const kind = session.kind === 'onboarding' ? 'Onboarding' : '1-on-1'
  return (
    <li className="space-y-3 rounded-lg border p-4">
      <p className="font-medium">
        {kind} with {session.memberName}: {dayLabel(session.startsAt, zone)} at {timeLabel(session.startsAt, zone)} ({timeLabel(session.startsAt, session.memberTimeZone)} for them, {session.memberTimeZone})
        {session.status !== 'booked' ? ` (${session.status === 'no_show' ? 'missed' : session.status})` : ''}
      </p>
      {session.memberPhone ? <p>Call them now: {session.memberPhone}</p> : null}
      {session.status === 'booked' ? (
        <form
          noValidate
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault()
            meeting.mutate({ meeting: videoUrl.trim() ? 'video' : 'phone', videoUrl: videoUrl.trim() || null })
          }}
        >
          <Field id={ids.video} label="Video link (leave empty to call their phone)" error={errorFor(meeting.error, 'videoUrl')} className="min-w-64 flex-1">
            {(control) => <Input {...control} type="url" placeholder="https://" value={videoUrl} onChange={(event) => setVideoUrl(event.target.value)} />}
          </Field>
          <Button type="submit" variant="outline" disabled={meeting.isPending}>
            Save how you meet
          </Button>
        </form>
      ) : null}
      {session.started && session.status !== 'cancelled' ? (
        <form
          noValidate
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault()
            write.mutate()
          }}
        >
          <Field id={ids.summary} label="Session summary" error={errorFor(write.error, 'summary')}>
            {(control) => <Textarea {...control} rows={3} value={summary} onChange={(event) => setSummary(event.target.value)} />}
          </Field>
          <Field id={ids.commitments} label="Commitments agreed (one per line)" error={errorFor(write.error, 'commitments')}>
            {(control) => <Textarea {...control} rows={3} value={commitments} onChange={(event) => setCommitments(event.target.value)} />}
          </Field>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={write.isPending}>
              Save summary
            </Button>
            {session.status === 'booked' ? (
              <Button type="button" variant="outline" disabled={noShow.isPending} onClick={() => noShow.mutate()}>
                Mark as missed
              </Button>
            ) : null}
          </div>
        </form>
      ) : null}
    </li>
  )
}

function AvailabilityEditor() {
  const availability = useQuery(availabilityQueryOptions())
  if (!availability.data) return null
  return <AvailabilityForm key={JSON.stringify(availability.data)} initial={availability.data} />
}

type DayHours = { on: boolean; startTime: string; endTime: string }

function AvailabilityForm({ initial }: { initial: Availability & { timeZone: string } }) {
  const queryClient = useQueryClient()
  const [days, setDays] = useState<DayHours[]>(
    WEEKDAY_NAMES.map((_, index) => {
      const window = initial.weekly.find((item) => item.weekday === index + 1)
      return { on: window !== undefined, startTime: window?.startTime ?? '09:00', endTime: window?.endTime ?? '17:00' }
    }),
  )
  const [daysOff, setDaysOff] = useState(
    initial.exceptions
      .filter((exception) => exception.kind === 'off')
      .map((exception) => exception.date)
      .join(', '),
  )
  const [extras, setExtras] = useState(
    initial.exceptions.filter((exception) => exception.kind === 'extra').map((exception) => ({ date: exception.date, startTime: exception.startTime ?? '09:00', endTime: exception.endTime ?? '10:00' })),
  )
  const [buffer, setBuffer] = useState(String(initial.bufferMinutes))
  const [notice, setNotice] = useState(String(initial.minNoticeHours))
  const [horizon, setHorizon] = useState(String(initial.horizonDays))
  const ids = { buffer: useId(), off: useId(), notice: useId(), horizon: useId() }
  const save = useMutation({
    mutationFn: () =>
      saveAvailability({
        weekly: days.flatMap((day, index) => (day.on ? [{ weekday: index + 1, startTime: day.startTime, endTime: day.endTime }] : [])),
        exceptions: [
          ...extras.filter((extra) => extra.date).map((extra) => ({ ...extra, kind: 'extra' as const })),
          ...daysOff
            .split(/[,\s]+/)
            .filter(Boolean)
            .map((date) => ({ date, kind: 'off' as const, startTime: null, endTime: null })),
        ],
        bufferMinutes: Number(buffer),
        minNoticeHours: Number(notice),
        horizonDays: Number(horizon),
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(sessionKeys.availability, saved)
      void toast({ title: 'Session hours saved', description: 'Members see the new times at once.' })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : failed('Hours not saved')(error)),
  })
  const fieldError = isApiError(save.error) && save.error.field ? save.error.message : undefined
  return (
    <SectionCard title="Session hours" description={`When members can book you, in your time zone (${initial.timeZone}). Members book at least ${initial.minNoticeHours} hours ahead and up to ${initial.horizonDays} days ahead.`}>
      <form
        noValidate
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault()
          save.mutate()
        }}
      >
        <fieldset className="space-y-2">
          <legend className="mb-2 text-sm font-medium">Weekly hours</legend>
          {WEEKDAY_NAMES.map((name, index) => {
            const day = days[index]!
            const update = (change: Partial<DayHours>) => setDays((current) => current.map((item, at) => (at === index ? { ...item, ...change } : item)))
            return (
              <div key={name} className="flex flex-wrap items-center gap-3">
                <label className="flex w-32 items-center gap-2 text-sm">
                  <input type="checkbox" checked={day.on} onChange={(event) => update({ on: event.target.checked })} />
                  {name}
                </label>
                <Input className="w-32" type="time" aria-label={`${name} from`} disabled={!day.on} value={day.startTime} onChange={(event) => update({ startTime: event.target.value })} />
                <Input className="w-32" type="time" aria-label={`${name} until`} disabled={!day.on} value={day.endTime} onChange={(event) => update({ endTime: event.target.value })} />
              </div>
            )
          })}
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id={ids.buffer} label="Free minutes after each session" error={errorFor(save.error, 'bufferMinutes')}>
            {(control) => <Input {...control} type="number" min={0} max={120} value={buffer} onChange={(event) => setBuffer(event.target.value)} />}
          </Field>
          <Field id={ids.off} label="Days off (YYYY-MM-DD, separated by commas)" error={errorFor(save.error, 'exceptions')}>
            {(control) => <Input {...control} value={daysOff} onChange={(event) => setDaysOff(event.target.value)} />}
          </Field>
          <Field id={ids.notice} label="Minimum notice (hours)" error={errorFor(save.error, 'minNoticeHours')}>
            {(control) => <Input {...control} type="number" min={1} max={168} value={notice} onChange={(event) => setNotice(event.target.value)} />}
          </Field>
          <Field id={ids.horizon} label="Bookable up to (days ahead)" error={errorFor(save.error, 'horizonDays')}>
            {(control) => <Input {...control} type="number" min={7} max={90} value={horizon} onChange={(event) => setHorizon(event.target.value)} />}
          </Field>
        </div>
        <fieldset className="space-y-2">
          <legend className="mb-2 text-sm font-medium">Extra hours on a date</legend>
          {extras.map((extra, index) => {
            const update = (change: Partial<typeof extra>) => setExtras((current) => current.map((item, at) => (at === index ? { ...item, ...change } : item)))
            return (
              <div key={index} className="flex flex-wrap items-center gap-3">
                <Input className="w-44" type="date" aria-label={`Extra hours ${index + 1}: date`} value={extra.date} onChange={(event) => update({ date: event.target.value })} />
                <Input className="w-32" type="time" aria-label={`Extra hours ${index + 1}: from`} value={extra.startTime} onChange={(event) => update({ startTime: event.target.value })} />
                <Input className="w-32" type="time" aria-label={`Extra hours ${index + 1}: until`} value={extra.endTime} onChange={(event) => update({ endTime: event.target.value })} />
                <Button type="button" variant="ghost" onClick={() => setExtras((current) => current.filter((_, at) => at !== index))}>
                  Remove
                </Button>
              </div>
            )
          })}
          <Button type="button" variant="outline" size="sm" onClick={() => setExtras((current) => [...current, { date: '', startTime: '09:00', endTime: '10:00' }])}>
            Add extra hours
          </Button>
        </fieldset>
        {fieldError && !['bufferMinutes', 'exceptions', 'minNoticeHours', 'horizonDays'].some((field) => errorFor(save.error, field)) ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {fieldError}
          </p>
        ) : null}
        <Button type="submit" disabled={save.isPending}>
          Save session hours
        </Button>
      </form>
    </SectionCard>
  )
}
