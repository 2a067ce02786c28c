/**
 * White-glove onboarding in the member's file (docs/decisions/082): the coach changes the member's
 * 90-day goal, the obstacles they watch for and their daily call time. Only what changed is sent;
 * each change is on the member's account page ("Dana Lee (coach) updated your 90-day goal.").
 */
import { useMutation } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { AdjustPlanResponseSchema, type AdjustPlanBody } from '#common/coach-sessions'
import { LIFE_AREAS, type LifeArea } from '#common/domain'
import { LIFE_AREA_TITLES } from '#common/life-areas'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Textarea } from '#web/components/ui/textarea'
import { api, isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { NativeSelect, errorFor } from '#web/features/support/support-form'

const adjustPlan = (memberId: string, body: AdjustPlanBody) => api.put(`/api/staff/coach/members/${encodeURIComponent(memberId)}/plan`, body, AdjustPlanResponseSchema)

type Props = {
  memberId: string
  memberName: string
  goal90Days: string
  obstacles: string
  /** Each life area's goal notes from the intake. */
  areaNotes: Partial<Record<LifeArea, string>>
  onSaved: (plan: { goal90Days: string; obstacles: string }) => void
}

export function AdjustPlan({ memberId, memberName, goal90Days, obstacles, areaNotes, onSaved }: Props) {
  const [goal, setGoal] = useState(goal90Days)
  const [watch, setWatch] = useState(obstacles)
  const [callTime, setCallTime] = useState('')
  const [area, setArea] = useState<LifeArea>(LIFE_AREAS[0])
  const [notes, setNotes] = useState<Partial<Record<LifeArea, string>>>(areaNotes)
  const ids = { goal: useId(), watch: useId(), time: useId(), area: useId(), notes: useId() }
  const save = useMutation({
    mutationFn: () =>
      adjustPlan(memberId, {
        ...(goal.trim() !== goal90Days ? { goal90Days: goal.trim() } : {}),
        ...(watch.trim() !== obstacles ? { obstacles: watch.trim() } : {}),
        ...(callTime ? { dailyCallTime: callTime } : {}),
        ...((notes[area] ?? '').trim() !== (areaNotes[area] ?? '') ? { area: { lifeArea: area, notes: (notes[area] ?? '').trim() } } : {}),
      }),
    onSuccess: ({ changed }) => {
      onSaved({ goal90Days: goal.trim(), obstacles: watch.trim() })
      setCallTime('')
      void toast({ title: changed.length ? 'Plan updated' : 'Nothing changed', description: changed.length ? `${memberName.split(/\s+/)[0]} sees the change on their account page.` : undefined })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : void toast({ title: 'Plan not updated', description: error.message, variant: 'destructive' })),
  })
  return (
    <SectionCard title="Adjust their plan" description="In onboarding or after: their 90-day goal, what to watch for and their daily call time. They see each change.">
      <form
        noValidate
        className="space-y-3"
        onSubmit={(event) => {
          event.preventDefault()
          save.mutate()
        }}
      >
        <Field id={ids.goal} label="90-day goal" error={errorFor(save.error, 'goal90Days')}>
          {(control) => <Textarea {...control} rows={2} value={goal} onChange={(event) => setGoal(event.target.value)} />}
        </Field>
        <Field id={ids.watch} label="Obstacles to watch" error={errorFor(save.error, 'obstacles')}>
          {(control) => <Textarea {...control} rows={2} value={watch} onChange={(event) => setWatch(event.target.value)} />}
        </Field>
        <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
          <Field id={ids.area} label="Life area">
            {(control) => (
              <NativeSelect {...control} value={area} onChange={(event) => setArea(event.target.value as LifeArea)}>
                {LIFE_AREAS.map((item) => (
                  <option key={item} value={item}>
                    {LIFE_AREA_TITLES[item]}
                  </option>
                ))}
              </NativeSelect>
            )}
          </Field>
          <Field id={ids.notes} label={`Their ${LIFE_AREA_TITLES[area]} goal`} error={errorFor(save.error, 'area')}>
            {(control) => <Textarea {...control} rows={2} value={notes[area] ?? ''} onChange={(event) => setNotes((current) => ({ ...current, [area]: event.target.value }))} />}
          </Field>
        </div>
        <Field id={ids.time} label="New daily call time (their time zone; leave empty to keep it)" error={errorFor(save.error, 'dailyCallTime')}>
          {(control) => <Input {...control} type="time" step={1800} className="w-40" value={callTime} onChange={(event) => setCallTime(event.target.value)} />}
        </Field>
        <Button type="submit" disabled={save.isPending}>
          Save their plan
        </Button>
      </form>
    </SectionCard>
  )
}
