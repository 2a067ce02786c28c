import { useId } from 'react'
import { GOAL_TEXT_MAX, NOTES_MAX, type GoalsForm } from '#common/goals'
import { Label } from '#web/components/ui/label'
import { Textarea } from '#web/components/ui/textarea'
import { CallPeriodSelect, CallTimeSelect, TimezoneSelect } from './call-time-selects'

type SpecificGoals = GoalsForm['specificGoals']
type CallTime = GoalsForm['callTime']

const GOAL_FIELDS = [
  { key: 'goal90Days', label: 'What is your #1 goal in the next 90 days?', max: GOAL_TEXT_MAX },
  { key: 'goal12Months', label: 'What is your #1 goal in the next 12 months?', max: GOAL_TEXT_MAX },
  { key: 'goal5Years', label: 'What is your #1 goal in the next 5 years?', max: GOAL_TEXT_MAX },
  { key: 'obstacles', label: 'What obstacles might get in your way?', max: NOTES_MAX },
] as const

/** Step 10, 'Your Specific Personal Goals' (spec 2 §2): the three horizons, obstacles, the call time. */
export function SpecificGoalsStep({
  goals,
  callTime,
  onGoalsChange,
  onCallTimeChange,
}: {
  goals: SpecificGoals
  callTime: CallTime
  onGoalsChange: (goals: SpecificGoals) => void
  onCallTimeChange: (callTime: CallTime) => void
}) {
  const base = useId()
  const ids = { time: `${base}-time`, period: `${base}-period`, timezone: `${base}-timezone`, legend: `${base}-legend` }
  return (
    <div className="space-y-6">
      {GOAL_FIELDS.map((field) => (
        <div key={field.key} className="space-y-2">
          <Label htmlFor={`${base}-${field.key}`}>{field.label}</Label>
          <Textarea
            id={`${base}-${field.key}`}
            value={goals[field.key]}
            maxLength={field.max}
            rows={2}
            onChange={(event) => onGoalsChange({ ...goals, [field.key]: event.target.value })}
          />
        </div>
      ))}

      <fieldset className="space-y-3" aria-describedby={`${base}-hint`}>
        <legend id={ids.legend} className="text-base font-semibold">
          Preferred daily call time
        </legend>
        <p id={`${base}-hint`} className="text-sm text-muted-foreground">
          Your AI coach calls you every day at this time.
        </p>
        <div className="grid gap-3 sm:grid-cols-[8rem_7rem_1fr]">
          <CallTimeSelect id={ids.time} label="Time" value={callTime.time} onChange={(time) => onCallTimeChange({ ...callTime, time })} />
          <CallPeriodSelect id={ids.period} label="AM/PM" value={callTime.period} onChange={(period) => onCallTimeChange({ ...callTime, period })} />
          <TimezoneSelect
            id={ids.timezone}
            label="Timezone"
            value={callTime.timezone}
            onChange={(timezone) => onCallTimeChange({ ...callTime, timezone: timezone as CallTime['timezone'] })}
          />
        </div>
      </fieldset>
    </div>
  )
}
