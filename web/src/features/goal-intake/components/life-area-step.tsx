import { useId } from 'react'
import { SATISFACTION_MAX, SATISFACTION_MIN } from '#common/domain'
import { NOTES_MAX, satisfactionQuestion, type AreaAnswer, type LifeAreaDefinition } from '#common/goals'
import { Label } from '#web/components/ui/label'
import { Textarea } from '#web/components/ui/textarea'
import { OptionButton } from './option-button'

const SCORES = Array.from({ length: SATISFACTION_MAX - SATISFACTION_MIN + 1 }, (_, i) => SATISFACTION_MIN + i)

/** Steps 1 to 8: one life area. */
export function LifeAreaStep({
  area,
  answer,
  onChange,
}: {
  area: LifeAreaDefinition
  answer: AreaAnswer
  onChange: (answer: AreaAnswer) => void
}) {
  const ids = { options: useId(), score: useId(), notes: useId() }
  const toggle = (optionId: string) => {
    const selected = answer.selectedOptions.includes(optionId)
      ? answer.selectedOptions.filter((id) => id !== optionId)
      : [...answer.selectedOptions, optionId]
    onChange({ ...answer, selectedOptions: selected })
  }

  return (
    <div className="space-y-8">
      <section aria-labelledby={ids.options} className="space-y-3">
        <h2 id={ids.options} className="text-base font-semibold">
          Select your focus areas:
        </h2>
        <div role="group" aria-labelledby={ids.options} className="grid gap-2 sm:grid-cols-2">
          {area.options.map((option) => (
            <OptionButton key={option.id} pressed={answer.selectedOptions.includes(option.id)} onToggle={() => toggle(option.id)}>
              {option.label}
            </OptionButton>
          ))}
        </div>
      </section>

      <section aria-labelledby={ids.score} className="space-y-3">
        <h2 id={ids.score} className="text-base font-semibold">
          {satisfactionQuestion(area)}
        </h2>
        <div role="group" aria-labelledby={ids.score} className="flex flex-wrap gap-2">
          {SCORES.map((score) => (
            <OptionButton
              key={score}
              pressed={answer.satisfactionScore === score}
              onToggle={() => onChange({ ...answer, satisfactionScore: score })}
              className="w-11 justify-center px-0 text-center [&_svg]:hidden"
              label={`${score} out of ${SATISFACTION_MAX}`}
            >
              {score}
            </OptionButton>
          ))}
        </div>
      </section>

      <div className="space-y-2">
        <Label htmlFor={ids.notes}>Additional notes or specific goals:</Label>
        <Textarea
          id={ids.notes}
          value={answer.customNotes}
          maxLength={NOTES_MAX}
          rows={3}
          onChange={(event) => onChange({ ...answer, customNotes: event.target.value })}
        />
      </div>
    </div>
  )
}
