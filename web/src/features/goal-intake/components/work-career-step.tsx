import { useId } from 'react'
import { COMPANIES, COMPANY_SELECT_LABEL, INDUSTRIES, ROLE_MAX, type GoalsForm } from '#common/goals'
import { Checkbox } from '#web/components/ui/checkbox'
import { Input } from '#web/components/ui/input'
import { Label } from '#web/components/ui/label'
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '#web/components/ui/select'

type WorkCareer = GoalsForm['workCareer']

/** Step 9, 'Your Work & Career' (spec 2 §2): company, industry (one at a time), optional role. */
export function WorkCareerStep({ value, onChange }: { value: WorkCareer; onChange: (value: WorkCareer) => void }) {
  const ids = { company: useId(), industry: useId(), role: useId() }
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <Label htmlFor={ids.company}>{COMPANY_SELECT_LABEL}</Label>
        <Select value={value.company ?? ''} onValueChange={(company) => onChange({ ...value, company: company as WorkCareer['company'] })}>
          <SelectTrigger id={ids.company} className="sm:max-w-sm">
            <SelectValue placeholder="Choose your company" />
          </SelectTrigger>
          <SelectContent>
            {COMPANIES.map((company) => (
              <SelectItem key={company.id} value={company.id}>
                {company.label}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </div>

      <section aria-labelledby={ids.industry} className="space-y-3">
        <h2 id={ids.industry} className="text-base font-semibold">
          Industry
        </h2>
        <div role="group" aria-labelledby={ids.industry} className="grid gap-x-6 gap-y-3 sm:grid-cols-2">
          {INDUSTRIES.map((industry) => {
            const id = `${ids.industry}-${industry.id}`
            return (
              <div key={industry.id} className="flex items-center gap-3">
                <Checkbox
                  id={id}
                  checked={value.industry === industry.id}
                  // One box at a time; unchecking the checked one does nothing.
                  onChange={(event) => {
                    if (event.target.checked) onChange({ ...value, industry: industry.id })
                  }}
                />
                <Label htmlFor={id} className="font-normal">
                  {industry.label}
                </Label>
              </div>
            )
          })}
        </div>
      </section>

      <div className="space-y-2">
        <Label htmlFor={ids.role}>Role / Job Title (optional)</Label>
        <Input
          id={ids.role}
          value={value.role}
          maxLength={ROLE_MAX}
          autoComplete="organization-title"
          onChange={(event) => onChange({ ...value, role: event.target.value })}
          className="sm:max-w-sm"
        />
      </div>
    </div>
  )
}
