/**
 * /goal-templates (docs/decisions/081): coaches and admins write goal templates (name, who it is
 * for, life-area targets with focus options, a 90-day goal, obstacles, first commitments), edit them
 * (each edit a new version: what members took stays) and archive them; a coach offers one to a
 * member of theirs. A template can be changed by its author or an admin.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { LayoutTemplateIcon } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { LIFE_AREAS, type LifeArea } from '#common/domain'
import { TEMPLATE_AUDIENCE_MAX, TEMPLATE_GOAL_MAX, TEMPLATE_NAME_MAX, type GoalTemplateBody, type GoalTemplateVersion, type StaffGoalTemplate } from '#common/goal-templates'
import { goalOptionLabel, lifeAreaDefinition } from '#common/goals'
import { NotFoundPage } from '#web/components/not-found'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Checkbox } from '#web/components/ui/checkbox'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { Spinner } from '#web/components/ui/spinner'
import { Textarea } from '#web/components/ui/textarea'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { useFocusFirstInvalid } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { coachMembersQueryOptions } from '#web/features/coach/api'
import { PageShell } from '#web/features/navigation/page-shell'
import { staffMeQueryOptions } from '#web/features/staff/api'
import { useStaffRefusal } from '#web/features/staff/staff-access'
import { NativeSelect, errorFor } from '#web/features/support/support-form'
import { archiveTemplate, createTemplate, editTemplate, goalTemplateKeys, offerTemplate, staffTemplatesQueryOptions } from './api'

const failedToast = (title: string) => (error: unknown) =>
  void toast({ title, description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' })

/** The server's message for a field or anything under it ("obstacles.1", "targets.fitness.focus.0"). */
const errorUnder = (error: unknown, field: string) => (isApiError(error) && (error.field === field || error.field?.startsWith(`${field}.`)) ? error.message : undefined)

export function TemplatesPage() {
  useDocumentTitle('Goal templates')
  const me = useQuery(staffMeQueryOptions())
  const templates = useQuery(staffTemplatesQueryOptions())
  const queryClient = useQueryClient()
  const isCoach = me.data?.roles.includes('coach') ?? false
  const create = useMutation({
    mutationFn: createTemplate,
    onSuccess: async (template) => {
      await queryClient.invalidateQueries({ queryKey: goalTemplateKeys.staff })
      void toast({ title: 'Template published', description: `${template.current.name} is now in every Elite member's list.` })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : failedToast('Not published')(error)),
  })
  if (useStaffRefusal(templates.error) === 'not-found') return <NotFoundPage />
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl space-y-6">
        <header className="space-y-1">
          <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
            <LayoutTemplateIcon className="size-7 text-brand-coach" aria-hidden="true" />
            Goal templates
          </h1>
          <p className="text-muted-foreground">Elite members start their goal setting from these. An edit publishes a new version; what members already took stays as it was.</p>
        </header>
        <SectionCard title="Templates">
          {templates.isPending ? (
            <Spinner label="Loading templates..." showLabel />
          ) : templates.isError ? (
            <p role="alert" className="text-destructive">
              Unable to load the templates.
            </p>
          ) : (
            <ul className="divide-y" aria-label="Goal templates">
              {templates.data.map((template) => (
                <TemplateItem key={template.current.templateId} template={template} isCoach={isCoach} />
              ))}
            </ul>
          )}
        </SectionCard>
        <SectionCard title="New template" description="Members see the name and who it is for; choosing it fills in their goal setting, which they can change.">
          <TemplateForm key={create.data?.current.versionId ?? 'new'} submitLabel="Publish template" pending={create.isPending} error={create.error} onSubmit={(body) => create.mutate(body)} />
        </SectionCard>
      </div>
    </PageShell>
  )
}

function TemplateItem({ template, isCoach }: { template: StaffGoalTemplate; isCoach: boolean }) {
  const queryClient = useQueryClient()
  const [editing, setEditing] = useState(false)
  const { current } = template
  const replace = (next: StaffGoalTemplate) =>
    queryClient.setQueryData<StaffGoalTemplate[]>(goalTemplateKeys.staff, (list) => list?.map((item) => (item.current.templateId === next.current.templateId ? next : item)))
  const edit = useMutation({
    mutationFn: (body: GoalTemplateBody) => editTemplate(current.templateId, body),
    onSuccess: (next) => {
      replace(next)
      setEditing(false)
      void toast({ title: 'Template saved', description: `Version ${next.current.version} is what members see from now on.` })
    },
    onError: (error) => (isApiError(error) && error.field ? undefined : failedToast('Not saved')(error)),
  })
  const archive = useMutation({ mutationFn: () => archiveTemplate(current.templateId), onSuccess: replace, onError: failedToast('Not archived') })
  return (
    <li className="space-y-3 py-4">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-lg font-semibold">{current.name}</h3>
        <Badge variant="secondary">Version {current.version}</Badge>
        {template.archivedAt ? <Badge variant="destructive">Archived</Badge> : null}
      </div>
      <TemplateSummary template={current} />
      <div className="flex flex-wrap items-end gap-3">
        {template.canEdit ? (
          <Button variant="outline" size="sm" aria-expanded={editing} onClick={() => setEditing((open) => !open)} aria-label={`${editing ? 'Stop editing' : 'Edit'} ${current.name}`}>
            {editing ? 'Stop editing' : 'Edit'}
          </Button>
        ) : null}
        {template.canEdit && !template.archivedAt ? (
          <Button variant="outline" size="sm" disabled={archive.isPending} onClick={() => archive.mutate()} aria-label={`Archive ${current.name}`}>
            Archive
          </Button>
        ) : null}
        {isCoach && !template.archivedAt ? <OfferForm template={current} /> : null}
      </div>
      {editing ? <TemplateForm initial={current} submitLabel="Save as a new version" pending={edit.isPending} error={edit.error} onSubmit={(body) => edit.mutate(body)} /> : null}
    </li>
  )
}

function TemplateSummary({ template }: { template: GoalTemplateVersion }) {
  return (
    <div className="space-y-1 text-sm">
      <p className="text-muted-foreground">{template.audience}</p>
      <p>
        Targets:{' '}
        {LIFE_AREAS.filter((area) => template.targets[area])
          .map((area) => {
            const target = template.targets[area]!
            const focus = target.focus.map((id) => goalOptionLabel(area, id)).join('; ')
            return `${lifeAreaDefinition(area).shortLabel} ${target.score}/10${focus ? ` (${focus})` : ''}`
          })
          .join(' · ')}
      </p>
      <p>90-day goal: {template.ninetyDayGoal}</p>
      {template.obstacles.length > 0 ? <p>Obstacles: {template.obstacles.join('; ')}</p> : null}
      {template.firstCommitments.length > 0 ? <p>First commitments: {template.firstCommitments.join('; ')}</p> : null}
    </div>
  )
}

/** A coach offers the template to one of their members (who accepts or declines it). */
function OfferForm({ template }: { template: GoalTemplateVersion }) {
  const id = useId()
  const members = useQuery(coachMembersQueryOptions())
  const [memberId, setMemberId] = useState('')
  const offer = useMutation({
    mutationFn: (to: string) => offerTemplate(template.templateId, to),
    onSuccess: (_offer, to) => {
      setMemberId('')
      const name = members.data?.find((member) => member.memberId === to)?.fullName ?? 'Your member'
      void toast({ title: 'Template offered', description: `${name} will see it on their dashboard and can accept or decline it.` })
    },
    onError: (error) => (isApiError(error) && error.field === 'memberId' ? undefined : failedToast('Not offered')(error)),
  })
  if (!members.data || members.data.length === 0) return null
  return (
    <form
      noValidate
      className="flex flex-wrap items-end gap-2"
      onSubmit={(event) => {
        event.preventDefault()
        offer.mutate(memberId)
      }}
    >
      <Field id={id} label={`Offer ${template.name} to`} error={errorFor(offer.error, 'memberId')}>
        {(control) => (
          <NativeSelect {...control} value={memberId} onChange={(event) => setMemberId(event.target.value)} className="w-56">
            <option value="">Choose a member</option>
            {members.data.map((member) => (
              <option key={member.memberId} value={member.memberId}>
                {member.fullName}
              </option>
            ))}
          </NativeSelect>
        )}
      </Field>
      <Button type="submit" size="sm" disabled={offer.isPending || memberId === ''} aria-label={`Offer ${template.name}`}>
        Offer
      </Button>
    </form>
  )
}

type Draft = {
  name: string
  audience: string
  ninetyDayGoal: string
  /** One a line. */
  obstacles: string
  firstCommitments: string
  /** Per area: the target score ('' for none) and the focus options. */
  targets: Record<LifeArea, { score: string; focus: string[] }>
}

const lines = (value: string) =>
  value
    .split('\n')
    .map((line) => line.replace(/^\s*[-•]\s*/, '').trim())
    .filter(Boolean)

function draftOf(template?: GoalTemplateVersion): Draft {
  const targets = Object.fromEntries(
    LIFE_AREAS.map((area) => {
      const target = template?.targets[area]
      return [area, { score: target ? String(target.score) : '', focus: target ? [...target.focus] : [] }]
    }),
  ) as Draft['targets']
  return {
    name: template?.name ?? '',
    audience: template?.audience ?? '',
    ninetyDayGoal: template?.ninetyDayGoal ?? '',
    obstacles: template?.obstacles.join('\n') ?? '',
    firstCommitments: template?.firstCommitments.join('\n') ?? '',
    targets,
  }
}

/** The body the server takes: only the areas given a target score. */
function bodyOf(draft: Draft): GoalTemplateBody {
  const targets: GoalTemplateBody['targets'] = {}
  for (const area of LIFE_AREAS) {
    const { score, focus } = draft.targets[area]
    if (score) targets[area] = { score: Number(score), focus }
  }
  return { name: draft.name, audience: draft.audience, ninetyDayGoal: draft.ninetyDayGoal, obstacles: lines(draft.obstacles), firstCommitments: lines(draft.firstCommitments), targets }
}

function TemplateForm({
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
}: {
  initial?: GoalTemplateVersion
  submitLabel: string
  pending: boolean
  error: unknown
  onSubmit: (body: GoalTemplateBody) => void
}) {
  const [draft, setDraft] = useState(() => draftOf(initial))
  const ids = { name: useId(), audience: useId(), goal: useId(), obstacles: useId(), commitments: useId(), targets: useId() }
  const { formRef, focusFirstInvalid } = useFocusFirstInvalid()
  // The server named a field: focus it, so its message is read with it.
  useEffect(() => {
    if (isApiError(error) && error.field) focusFirstInvalid()
  }, [error, focusFirstInvalid])
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }))
  const setTarget = (area: LifeArea, change: Partial<Draft['targets'][LifeArea]>) =>
    setDraft((current) => ({ ...current, targets: { ...current.targets, [area]: { ...current.targets[area], ...change } } }))
  const targetsError = errorUnder(error, 'targets')
  return (
    <form
      ref={formRef}
      noValidate
      className="grid gap-4 sm:grid-cols-2"
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit(bodyOf(draft))
      }}
    >
      <Field id={ids.name} label="Name" error={errorFor(error, 'name')}>
        {(control) => <Input {...control} maxLength={TEMPLATE_NAME_MAX} value={draft.name} onChange={(event) => set('name', event.target.value)} />}
      </Field>
      <Field id={ids.audience} label="Who it is for" error={errorFor(error, 'audience')}>
        {(control) => <Input {...control} maxLength={TEMPLATE_AUDIENCE_MAX} value={draft.audience} onChange={(event) => set('audience', event.target.value)} />}
      </Field>
      <Field id={ids.goal} label="Suggested 90-day goal" error={errorFor(error, 'ninetyDayGoal')} className="sm:col-span-2">
        {(control) => <Textarea {...control} rows={2} maxLength={TEMPLATE_GOAL_MAX} value={draft.ninetyDayGoal} onChange={(event) => set('ninetyDayGoal', event.target.value)} />}
      </Field>
      <Field id={ids.obstacles} label="Obstacles to watch" hint="One a line, at most 5." error={errorUnder(error, 'obstacles')}>
        {(control) => <Textarea {...control} rows={3} value={draft.obstacles} onChange={(event) => set('obstacles', event.target.value)} />}
      </Field>
      <Field id={ids.commitments} label="Suggested first commitments" hint="One a line, at most 5." error={errorUnder(error, 'firstCommitments')}>
        {(control) => <Textarea {...control} rows={3} value={draft.firstCommitments} onChange={(event) => set('firstCommitments', event.target.value)} />}
      </Field>
      <fieldset className="space-y-3 sm:col-span-2" aria-describedby={`${ids.targets}-hint${targetsError ? ` ${ids.targets}-error` : ''}`}>
        <legend className="text-sm font-medium">Life-area targets</legend>
        <p id={`${ids.targets}-hint`} className="text-sm text-muted-foreground">
          Give at least one area a target score; its focus options are chosen for the member in the wizard. Areas without a score are left out.
        </p>
        <div className="grid gap-3 sm:grid-cols-2">
          {LIFE_AREAS.map((area) => (
            <AreaTarget key={area} area={area} value={draft.targets[area]} onChange={(change) => setTarget(area, change)} invalid={Boolean(errorUnder(error, `targets.${area}`))} />
          ))}
        </div>
        {targetsError ? (
          <p id={`${ids.targets}-error`} className="text-sm font-medium text-destructive">
            {targetsError}
          </p>
        ) : null}
      </fieldset>
      <div className="sm:col-span-2">
        <Button type="submit" disabled={pending}>
          {submitLabel}
        </Button>
      </div>
    </form>
  )
}

function AreaTarget({ area, value, onChange, invalid }: { area: LifeArea; value: Draft['targets'][LifeArea]; onChange: (change: Partial<Draft['targets'][LifeArea]>) => void; invalid: boolean }) {
  const id = useId()
  const definition = lifeAreaDefinition(area)
  return (
    <fieldset className="space-y-2 rounded-lg border p-3">
      <legend className="px-1 text-sm font-semibold">{definition.title}</legend>
      <Field id={id} label="Target score">
        {(control) => (
          <NativeSelect {...control} aria-invalid={invalid || undefined} value={value.score} onChange={(event) => onChange({ score: event.target.value })}>
            <option value="">No target</option>
            {Array.from({ length: 10 }, (_, index) => String(index + 1)).map((score) => (
              <option key={score} value={score}>
                {score} out of 10
              </option>
            ))}
          </NativeSelect>
        )}
      </Field>
      <ul className="space-y-1" aria-label={`${definition.title} focus options`}>
        {definition.options.map((option) => (
          <li key={option.id}>
            <label className="flex items-center gap-2 text-sm">
              <Checkbox
                checked={value.focus.includes(option.id)}
                onChange={(event) => onChange({ focus: event.target.checked ? [...value.focus, option.id] : value.focus.filter((chosen) => chosen !== option.id) })}
              />
              {option.label}
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  )
}
