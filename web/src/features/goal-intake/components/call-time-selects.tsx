import { CALL_PERIODS, CALL_TIMES, TIMEZONES, timezoneDisplay, type CallPeriod } from '#common/goals'
import { Label } from '#web/components/ui/label'
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '#web/components/ui/select'

/**
 * The call-time dropdowns of the goal intake (spec 2 §2: time, AM/PM, timezone), shared with the
 * call schedule so both offer the same times and zones. Each is a labelled Radix select.
 */
type SelectFieldProps<T extends string> = {
  id: string
  label: string
  value: T | null
  onChange: (value: T) => void
  placeholder?: string
  disabled?: boolean
}

/** The 24 half-hour times from 1:00 to 12:30. */
export function CallTimeSelect({ id, label, value, onChange, placeholder = 'Time', disabled }: SelectFieldProps<string>) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Select value={value ?? ''} onValueChange={onChange} disabled={disabled}>
        <SelectTrigger id={id}>
          <SelectValue placeholder={placeholder} />
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
  )
}

export function CallPeriodSelect({ id, label, value, onChange, placeholder = 'AM/PM', disabled }: SelectFieldProps<CallPeriod>) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Select value={value ?? ''} onValueChange={(period) => onChange(period as CallPeriod)} disabled={disabled}>
        <SelectTrigger id={id}>
          <SelectValue placeholder={placeholder} />
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
  )
}

/**
 * The eight product zones, shown as 'Eastern (ET)'. `by` says whether the value is the zone's id
 * (the goal intake) or its IANA name (the call schedule); `otherZone` adds a zone outside the
 * eight under its IANA name, so a schedule set elsewhere is shown as it is.
 */
export function TimezoneSelect({
  id,
  label,
  value,
  onChange,
  placeholder = 'Timezone',
  disabled,
  by = 'id',
  otherZone,
}: SelectFieldProps<string> & { by?: 'id' | 'iana'; otherZone?: string | null }) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Select value={value ?? ''} onValueChange={onChange} disabled={disabled}>
        <SelectTrigger id={id}>
          <SelectValue placeholder={placeholder} />
        </SelectTrigger>
        <SelectContent>
          {TIMEZONES.map((tz) => (
            <SelectItem key={tz.id} value={by === 'id' ? tz.id : tz.iana}>
              {timezoneDisplay(tz)}
            </SelectItem>
          ))}
          {otherZone && !TIMEZONES.some((tz) => tz.iana === otherZone) ? <SelectItem value={otherZone}>{otherZone}</SelectItem> : null}
        </SelectContent>
      </Select>
    </div>
  )
}
