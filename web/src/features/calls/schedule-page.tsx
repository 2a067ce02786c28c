import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeftIcon, PhoneOutgoingIcon, RefreshCwIcon } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { stoppedMessage } from '#common/account'
import type { CallScheduleResponse, UpdateCallSchedule } from '#common/calls'
import { fromDailyCallTime, toDailyCallTime, type CallPeriod } from '#common/goals'
import { PageShell } from '#web/features/navigation/page-shell'
import { Button } from '#web/components/ui/button'
import { SectionCard } from '#web/components/section-card'
import { FieldError, fieldControlProps } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { Spinner } from '#web/components/ui/spinner'
import { Switch } from '#web/components/ui/switch'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast, type ToastInput } from '#web/lib/toast'
import { VerifyNumberFromAccount } from '#web/features/account/verify-number'
import { consentKeys } from '#web/features/consent/api'
import { ConsentSection } from '#web/features/consent/consent-section'
import { dashboardKeys } from '#web/features/dashboard/api'
import { goalsKeys } from '#web/features/goal-intake/api'
import { CallPeriodSelect, CallTimeSelect, TimezoneSelect } from '#web/features/goal-intake/components/call-time-selects'
import { callMeNow, callScheduleQueryOptions, callsKeys, saveCallSchedule } from './api'
import { CALL_NOW_STARTED, callNowErrorToast } from './call-now'
import { addDays, clockTime, localDateIn, longDate, zoneLabel } from './format'

type Field = keyof UpdateCallSchedule
type FieldErrors = Partial<Record<Field, string>>

/** /calls/schedule: the call time and zone, the evening check-in, a pause, calls on or off, and "Call me now". */
export function SchedulePage() {
  useDocumentTitle('Call Schedule')
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <Button asChild variant="ghost" className="-ml-3">
          <Link to="/dashboard">
            <ArrowLeftIcon aria-hidden="true" />
            Back to Dashboard
          </Link>
        </Button>
        <header className="space-y-1">
          <h1 className="text-3xl font-bold tracking-tight">Call Schedule</h1>
          <p className="text-muted-foreground">When your AI coach calls you, and whether it does.</p>
        </header>
        <CallScheduleSettings />
        <ConsentSection />
      </div>
    </PageShell>
  )
}

/**
 * The schedule's sections (call times, pause, calls on or off, a test call) with their loading and
 * error states: this page's, and the account page's (paid members). `verifyHere`: offer "Verify your
 * number" in the calls section while the number is not proven (the account page has it in Profile).
 */
export function CallScheduleSettings({ verifyHere = true }: { verifyHere?: boolean }) {
  const query = useQuery(callScheduleQueryOptions())
  if (query.isPending) {
    return (
      <div className="flex justify-center py-16">
        <Spinner size="lg" label="Loading your call schedule..." showLabel />
      </div>
    )
  }
  if (query.isError) {
    return (
      <div role="alert" className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-destructive/40 bg-destructive/5 p-4">
        <p className="font-medium text-destructive">Unable to load your call schedule</p>
        <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RefreshCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  }
  return <ScheduleLoaded schedule={query.data} verifyHere={verifyHere} />
}

type TimeChoice = { time: string | null; period: CallPeriod | null }
const choiceOf = (value: string | null): TimeChoice => (value ? fromDailyCallTime(value) : { time: null, period: null })
const hhmm = (choice: TimeChoice) => (choice.time && choice.period ? toDailyCallTime(choice.time, choice.period).slice(0, 5) : null)

/** The last day a pause may end: a year after today (Feb 29 → Feb 28). */
function aYearAfter(today: string): string {
  const next = `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`
  return next.endsWith('-02-29') ? next.replace(/-02-29$/, '-02-28') : next
}

function ScheduleLoaded({ schedule, verifyHere }: { schedule: CallScheduleResponse; verifyHere: boolean }) {
  const queryClient = useQueryClient()
  const base = useId()
  const [errors, setErrors] = useState<FieldErrors>({})
  const [daily, setDaily] = useState<TimeChoice>(() => choiceOf(schedule.dailyCallTime))
  const [zone, setZone] = useState(schedule.timeZone)
  const [evening, setEvening] = useState<TimeChoice>(() => choiceOf(schedule.eveningCallTime ?? schedule.eveningDefault))
  const [resumeOn, setResumeOn] = useState('')

  const today = localDateIn(new Date(), schedule.timeZone)
  const current: UpdateCallSchedule | null = schedule.dailyCallTime
    ? {
        dailyCallTime: schedule.dailyCallTime,
        timeZone: schedule.timeZone,
        eveningCallTime: schedule.eveningAvailable ? schedule.eveningCallTime : null,
        pausedUntil: schedule.pausedUntil,
        callsEnabled: schedule.callsEnabled,
      }
    : null

  // A STOP texted from the number: only a START from it turns calls back on, not this switch.
  const stoppedOff = schedule.phoneStopped && !schedule.callsEnabled
  const numberNote = schedule.phoneStopped
    ? stoppedMessage(schedule.startNumber)
    : !schedule.phoneVerified
      ? verifyHere
        ? 'Your coach calls only once your number is verified.'
        : 'Your coach calls only once your number is verified (under Profile).'
      : null

  const save = useMutation({
    mutationFn: ({ input }: { input: UpdateCallSchedule; done: ToastInput }) => saveCallSchedule(input),
    onSuccess: (saved, { done }) => {
      setErrors({})
      queryClient.setQueryData(callsKeys.schedule, saved)
      void queryClient.invalidateQueries({ queryKey: callsKeys.next })
      // The goal intake shows the call time too; the consent history the calls switch.
      void queryClient.invalidateQueries({ queryKey: goalsKeys.all })
      void queryClient.invalidateQueries({ queryKey: consentKeys.all })
      void toast(done)
    },
    onError: (error) => {
      const field = isApiError(error) ? (error.field as Field | undefined) : undefined
      if (field) setErrors({ [field]: error.message })
      void toast({ title: 'Your schedule was not saved', description: error.message, variant: 'destructive' })
    },
  })

  const callNow = useMutation({
    mutationFn: callMeNow,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.calls })
      void toast(CALL_NOW_STARTED)
    },
    onError: (error) => void toast(callNowErrorToast(error)),
  })

  const saveTimes = (event: FormEvent) => {
    event.preventDefault()
    const dailyCallTime = hhmm(daily)
    if (!dailyCallTime) {
      setErrors({ dailyCallTime: 'Choose a time and AM or PM' })
      return
    }
    const eveningTime = hhmm(evening)
    // The evening default stays a default until the person picks another time.
    const eveningCallTime = !schedule.eveningAvailable
      ? null
      : schedule.eveningCallTime === null && eveningTime === schedule.eveningDefault
        ? null
        : eveningTime
    save.mutate({
      input: {
        dailyCallTime,
        timeZone: zone,
        eveningCallTime,
        pausedUntil: schedule.pausedUntil,
        callsEnabled: schedule.callsEnabled,
      },
      done: { title: 'Call schedule saved', description: `Your coach calls you at ${clockTime(dailyCallTime)} ${zoneLabel(zone)}.` },
    })
  }

  const pause = (event: FormEvent) => {
    event.preventDefault()
    if (!current) return
    if (!resumeOn) {
      setErrors({ pausedUntil: 'Choose the date calls resume' })
      return
    }
    save.mutate({
      input: { ...current, pausedUntil: resumeOn },
      done: { title: 'Calls paused', description: `Your calls resume on ${longDate(resumeOn, today)}.` },
    })
  }

  const ids = {
    time: `${base}-time`,
    period: `${base}-period`,
    zone: `${base}-zone`,
    eveningTime: `${base}-evening-time`,
    eveningPeriod: `${base}-evening-period`,
    resume: `${base}-resume`,
    enabled: `${base}-enabled`,
  }
  const saving = save.isPending

  return (
    <>
      <SectionCard title="Call times" description="Your coach calls you every day at your chosen time, in your time zone.">
        <form className="space-y-6" onSubmit={saveTimes} noValidate>
          <fieldset className="space-y-3" aria-describedby={errors.dailyCallTime || errors.timeZone ? `${ids.time}-error` : undefined}>
            <legend className="text-base font-semibold">Daily call</legend>
            <div className="grid gap-3 sm:grid-cols-[8rem_7rem_1fr]">
              <CallTimeSelect id={ids.time} label="Call time" value={daily.time} onChange={(time) => setDaily({ ...daily, time })} />
              <CallPeriodSelect id={ids.period} label="AM/PM" value={daily.period} onChange={(period) => setDaily({ ...daily, period })} />
              <TimezoneSelect id={ids.zone} label="Time zone" placeholder="Time zone" by="iana" otherZone={schedule.timeZone} value={zone} onChange={setZone} />
            </div>
            <FieldError id={ids.time}>{errors.dailyCallTime ?? errors.timeZone}</FieldError>
          </fieldset>

          <fieldset className="space-y-3" aria-describedby={`${ids.eveningTime}-hint`}>
            <legend className="text-base font-semibold">Evening check-in</legend>
            {schedule.eveningAvailable ? (
              <>
                <p id={`${ids.eveningTime}-hint`} className="text-sm text-muted-foreground">
                  A second call, to close your day.{' '}
                  {schedule.eveningCallTime === null ? `Until you choose, it is at ${clockTime(schedule.eveningDefault)}.` : null}
                </p>
                <div className="grid gap-3 sm:grid-cols-[12rem_9rem]">
                  <CallTimeSelect
                    id={ids.eveningTime}
                    label="Evening check-in time"
                    value={evening.time}
                    onChange={(time) => setEvening({ ...evening, time })}
                  />
                  <CallPeriodSelect
                    id={ids.eveningPeriod}
                    label="Evening AM/PM"
                    value={evening.period}
                    onChange={(period) => setEvening({ ...evening, period })}
                  />
                </div>
                <FieldError id={ids.eveningTime}>{errors.eveningCallTime}</FieldError>
              </>
            ) : (
              <p id={`${ids.eveningTime}-hint`} className="text-sm text-muted-foreground">
                The evening check-in comes with the Premium and Elite plans.
              </p>
            )}
          </fieldset>

          <Button type="submit" disabled={saving}>
            {saving && save.variables?.done.title === 'Call schedule saved' ? 'Saving...' : 'Save call times'}
          </Button>
        </form>
      </SectionCard>

      <SectionCard title="Pause calls" description="Taking a break? Your coach will not call until the date you choose.">
        {!current ? (
          <p className="text-sm text-muted-foreground">Choose and save a call time first.</p>
        ) : schedule.pausedUntil ? (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p data-testid="paused-until">
              Calls are paused. They resume on <strong>{longDate(schedule.pausedUntil, today)}</strong>.
            </p>
            <Button
              variant="outline"
              disabled={saving}
              onClick={() =>
                save.mutate({ input: { ...current, pausedUntil: null }, done: { title: 'Calls resumed', description: 'Your coach calls you again from your next call time.' } })
              }
            >
              Resume calls now
            </Button>
          </div>
        ) : (
          <form className="flex flex-wrap items-end gap-3" onSubmit={pause} noValidate>
            <div className="grid gap-2">
              <Label htmlFor={ids.resume}>Resume calls on</Label>
              <Input
                type="date"
                className="w-48"
                min={addDays(today, 1)}
                max={aYearAfter(today)}
                value={resumeOn}
                onChange={(event) => setResumeOn(event.target.value)}
                {...fieldControlProps(ids.resume, errors.pausedUntil, `${ids.resume}-hint`)}
              />
            </div>
            <Button type="submit" variant="outline" disabled={saving}>
              Pause calls
            </Button>
            <p id={`${ids.resume}-hint`} className="w-full text-sm text-muted-foreground">
              No calls until this date; they start again on it. At most a year ahead.
            </p>
            <div className="w-full">
              <FieldError id={ids.resume}>{errors.pausedUntil}</FieldError>
            </div>
          </form>
        )}
      </SectionCard>

      <SectionCard title="Coaching calls" description="Turn your daily coaching calls off at any time, and back on when you want them.">
        <div className="flex items-center gap-3">
          <Switch
            id={ids.enabled}
            checked={schedule.callsEnabled}
            disabled={!current || saving || stoppedOff}
            aria-describedby={`${ids.enabled}-state${numberNote ? ` ${ids.enabled}-number` : ''}`}
            onCheckedChange={(callsEnabled) =>
              current &&
              save.mutate({
                input: { ...current, callsEnabled },
                done: callsEnabled
                  ? { title: 'Calls turned on', description: 'Your coach will call you at your call time.' }
                  : { title: 'Calls turned off', description: 'Your coach will not call you until you turn calls back on.' },
              })
            }
          />
          <Label htmlFor={ids.enabled}>Daily coaching calls</Label>
          <span id={`${ids.enabled}-state`} className="text-sm text-muted-foreground">
            {schedule.callsEnabled ? 'On' : 'Off'}
          </span>
        </div>
        <FieldError id={ids.enabled}>{errors.callsEnabled}</FieldError>
        {numberNote ? (
          <p id={`${ids.enabled}-number`} className="text-sm" data-testid="calls-number-note">
            {numberNote}
          </p>
        ) : null}
        {!schedule.phoneStopped && !schedule.phoneVerified && verifyHere ? <VerifyNumberFromAccount /> : null}
      </SectionCard>

      <SectionCard title="Test your setup" description="Get a short test call now, to check that your phone rings and you can hear your coach.">
        <Button onClick={() => callNow.mutate()} disabled={callNow.isPending}>
          <PhoneOutgoingIcon aria-hidden="true" />
          {callNow.isPending ? 'Calling...' : 'Call me now'}
        </Button>
      </SectionCard>
    </>
  )
}
