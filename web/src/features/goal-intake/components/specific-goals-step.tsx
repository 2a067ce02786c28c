import { useId } from 'react'
import {
  CALL_PERIODS,
  CALL_TIMES,
  GOAL_TEXT_MAX,
  NOTES_MAX,
  TIMEZONES,
  timezoneDisplay,
  type GoalsForm,
} from '#common/goals'
import { Label } from '../../../components/ui/label'
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select'
import { Textarea } from '../../../components/ui/textarea'

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
          <div className="space-y-2">
            <Label htmlFor={ids.time}>Time</Label>
            <Select value={callTime.time ?? ''} onValueChange={(time) => onCallTimeChange({ ...callTime, time })}>
              <SelectTrigger id={ids.time}>
                <SelectValue placeholder="Time" />
              </SelectTrigger>
              <SelectContent>
                {CALL_TIMES.map((time) => (
                  <SelectItem key={time} value={time}>
                    {time}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="space-y-2">
            <Label htmlFor={ids.period}>AM/PM</Label>
            <Select value={callTime.period ?? ''} onValueChange={(period) => onCallTimeChange({ ...callTime, period: period as CallTime['period'] })}>
              <SelectTrigger id={ids.period}>
                <SelectValue placeholder="AM/PM" />
              </SelectTrigger>
              <SelectContent>
                {CALL_PERIODS.map((period) => (
                  <SelectItem key={period} value={period}>
                    {period}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="space-y-2">
            <Label htmlFor={ids.timezone}>Timezone</Label>
            <Select
              value={callTime.timezone ?? ''}
              onValueChange={(timezone) => onCallTimeChange({ ...callTime, timezone: timezone as CallTime['timezone'] })}
            >
              <SelectTrigger id={ids.timezone}>
                <SelectValue placeholder="Timezone" />
              </SelectTrigger>
              <SelectContent>
                {TIMEZONES.map((tz) => (
                  <SelectItem key={tz.id} value={tz.id}>
                    {timezoneDisplay(tz)}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
        </div>
      </fieldset>
    </div>
  )
}
