import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate, useSearch } from '@tanstack/react-router'
import { ArrowLeftIcon, ArrowRightIcon, LoaderCircleIcon } from 'lucide-react'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { applyTemplate } from '#common/goal-templates'
import {
  GOALS_STEP_TITLE,
  LIFE_AREA_STEPS,
  WIZARD_STEP_COUNT,
  WORK_STEP_TITLE,
  formFromRecords,
  type GoalsForm,
} from '#common/goals'
import { PageShell } from '#web/features/navigation/page-shell'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { Progress } from '#web/components/ui/progress'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { authKeys, meQueryOptions } from '#web/features/auth/api'
import { templateVersionQueryOptions } from '#web/features/goal-templates/api'
import { TemplatePicker } from '#web/features/goal-templates/template-picker'
import { goalsKeys, saveGoals, wizardGoalsQueryOptions } from './api'
import { LifeAreaStep } from './components/life-area-step'
import { SpecificGoalsStep } from './components/specific-goals-step'
import { WorkCareerStep } from './components/work-career-step'

const AREA_STEPS = LIFE_AREA_STEPS.length // 8
const WORK_STEP = AREA_STEPS // index 8
const LAST_STEP = WIZARD_STEP_COUNT - 1 // index 9

/** The goal intake wizard (/goal-intake). */
export function GoalIntakePage() {
  useDocumentTitle('Set your goals')
  // Existing goals prefill the form; after 10 s (or on any error) the wizard starts empty.
  const goals = useQuery(wizardGoalsQueryOptions())
  // An Elite member may start from a goal template (docs/decisions/081): `?template=<version id>`.
  const search = useSearch({ strict: false }) as Record<string, unknown>
  const templateId = typeof search.template === 'string' ? search.template : null
  const elite = useQuery(meQueryOptions()).data?.subscriptionTier === 'elite'
  const template = useQuery({ ...templateVersionQueryOptions(templateId ?? ''), enabled: elite && templateId !== null })
  const applied = templateId !== null && template.isSuccess ? template.data : null

  useEffect(() => {
    // Spec 2 §8: a load error in the wizard is logged only; the form stays empty.
    if (goals.isError) console.warn('Could not load your saved goals; starting with an empty form.', goals.error)
  }, [goals.isError, goals.error])

  const saved = goals.isSuccess ? formFromRecords(goals.data) : formFromRecords([])
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-12">
      {goals.isPending || (elite && templateId !== null && template.isPending) ? (
        <div className="flex min-h-[40vh] items-center justify-center">
          <Spinner size="lg" label="Loading your goals..." showLabel className="flex-col" />
        </div>
      ) : (
        <GoalWizard
          // A template chosen (or dropped) starts the wizard again from its answers.
          key={applied?.versionId ?? 'own'}
          initial={applied ? applyTemplate(saved, applied) : saved}
          templateVersionId={applied?.versionId}
          intro={<TemplatePicker elite={elite} applied={applied} failed={templateId !== null && template.isError} />}
        />
      )}
    </PageShell>
  )
}

type WizardProps = {
  initial: GoalsForm
  /** The goal template version the answers came from, saved with them. */
  templateVersionId?: string | undefined
  /** Shown above the first step: starting from a template. */
  intro?: ReactNode
}

function GoalWizard({ initial, templateVersionId, intro }: WizardProps) {
  const [form, setForm] = useState<GoalsForm>(initial)
  const [step, setStep] = useState(0)
  const headingRef = useRef<HTMLHeadingElement>(null)
  const movedRef = useRef(false)
  const queryClient = useQueryClient()
  const navigate = useNavigate()

  // After Next or Previous, focus the new step's title so keyboard and screen-reader users start there.
  useEffect(() => {
    if (!movedRef.current) return
    headingRef.current?.focus()
  }, [step])

  const save = useMutation({
    mutationFn: saveGoals,
    onSuccess: async (result) => {
      queryClient.setQueryData(goalsKeys.all, result.goals)
      // The partner program may have changed with the company.
      void queryClient.invalidateQueries({ queryKey: authKeys.me })
      void toast({
        title: 'Goals Saved Successfully!',
        description: "Your AI coach is being prepared. You'll receive your first call soon!",
      })
      // Spec 2 §4: to /dashboard, falling back to /courses if that navigation fails.
      try {
        await navigate({ to: '/dashboard' })
      } catch {
        try {
          await navigate({ to: '/courses' })
        } catch {
          window.location.assign('/dashboard')
        }
      }
    },
    onError: (error) => {
      void toast({
        title: 'Error Saving Goals',
        description: error instanceof Error && error.message ? error.message : 'Please try again or contact support.',
        variant: 'destructive',
        // "Contact support" leads to the Help page, with this page and the error's code for support.
        action: {
          label: 'Contact support',
          onClick: () => void navigate({ to: '/help', search: { topic: 'coaching', from: '/goal-intake', ...(isApiError(error) ? { error: error.code } : {}) } }),
        },
      })
    },
  })

  const go = (next: number) => {
    movedRef.current = true
    setStep(Math.min(Math.max(next, 0), LAST_STEP))
    window.scrollTo({ top: 0 })
  }

  const area = step < AREA_STEPS ? LIFE_AREA_STEPS[step]! : null
  const title = area ? area.title : step === WORK_STEP ? WORK_STEP_TITLE : GOALS_STEP_TITLE
  const description = area
    ? area.description
    : step === WORK_STEP
      ? 'Tell your coach about your work, so the coaching fits your days.'
      : 'Name what you want most, what might stand in the way, and when your coach should call.'
  const nextLabel = step === AREA_STEPS - 1 ? 'Work & Career' : step === WORK_STEP ? 'Final Step' : 'Next'

  return (
    <div className="mx-auto max-w-3xl">
      {step === 0 && intro ? <div className="mb-6">{intro}</div> : null}
      <div className="mb-6 space-y-2">
        <p className="text-sm font-medium text-muted-foreground" aria-live="polite">
          Step {step + 1} of {WIZARD_STEP_COUNT}
        </p>
        <Progress value={step + 1} max={WIZARD_STEP_COUNT} aria-label="Goal setting progress" />
      </div>

      <Card>
        <CardContent className="space-y-8">
          <header className="space-y-2">
            <h1 ref={headingRef} tabIndex={-1} className="text-2xl font-bold tracking-tight outline-none sm:text-3xl">
              {title}
            </h1>
            <p className="text-muted-foreground">{description}</p>
          </header>

          {area ? (
            <LifeAreaStep
              key={area.id}
              area={area}
              answer={form.areas[area.id]}
              onChange={(answer) => setForm((current) => ({ ...current, areas: { ...current.areas, [area.id]: answer } }))}
            />
          ) : step === WORK_STEP ? (
            <WorkCareerStep value={form.workCareer} onChange={(workCareer) => setForm((current) => ({ ...current, workCareer }))} />
          ) : (
            <SpecificGoalsStep
              goals={form.specificGoals}
              callTime={form.callTime}
              onGoalsChange={(specificGoals) => setForm((current) => ({ ...current, specificGoals }))}
              onCallTimeChange={(callTime) => setForm((current) => ({ ...current, callTime }))}
            />
          )}

          <nav aria-label="Wizard steps" className="flex flex-wrap items-center justify-between gap-3 border-t pt-6">
            {step > 0 ? (
              <Button variant="outline" onClick={() => go(step - 1)} disabled={save.isPending}>
                <ArrowLeftIcon aria-hidden="true" />
                Previous
              </Button>
            ) : (
              <span />
            )}
            {step < LAST_STEP ? (
              <Button onClick={() => go(step + 1)}>
                {nextLabel}
                <ArrowRightIcon aria-hidden="true" />
              </Button>
            ) : (
              <Button onClick={() => save.mutate(templateVersionId ? { ...form, templateVersionId } : form)} disabled={save.isPending} aria-busy={save.isPending}>
                {save.isPending ? (
                  <>
                    <LoaderCircleIcon className="animate-spin" aria-hidden="true" />
                    Saving Goals...
                  </>
                ) : (
                  'Complete Goal Setting & Start Coaching'
                )}
              </Button>
            )}
          </nav>
        </CardContent>
      </Card>
    </div>
  )
}
