/**
 * "Start from a template" at the start of the goal intake (docs/decisions/081). An Elite member
 * sees their coach's offer and the published templates; choosing one opens the wizard prefilled
 * from it (`/goal-intake?template=<version>`), every answer still theirs to change. Other plans see
 * what Elite adds, with the way to it.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { LayoutTemplateIcon } from 'lucide-react'
import { useId } from 'react'
import type { GoalTemplateVersion } from '#common/goal-templates'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { publishedTemplatesQueryOptions } from './api'
import { TemplateOfferBanner } from './offer-banner'

type Props = {
  elite: boolean
  /** The template the wizard was started from, if any. */
  applied: GoalTemplateVersion | null
  /** The template asked for in the address could not be loaded. */
  failed: boolean
}

export function TemplatePicker({ elite, applied, failed }: Props) {
  if (!elite) {
    return (
      <p className="flex items-center gap-2 text-sm text-muted-foreground">
        <LayoutTemplateIcon className="size-4 text-brand-coach" aria-hidden="true" />
        <Link to="/payment" className="font-medium text-primary underline-offset-4 hover:underline">
          Start from a coach-made template with Elite
        </Link>
      </p>
    )
  }
  if (applied) {
    return (
      <div role="status" className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-dashed p-3 text-sm">
        <p>
          Started from the template <strong>{applied.name}</strong>. Every answer is yours to change.
        </p>
        <Button asChild variant="outline" size="sm">
          <Link to="/goal-intake">Start without it</Link>
        </Button>
      </div>
    )
  }
  return (
    <div className="space-y-4">
      {failed ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          That template could not be loaded. Choose another, or set your goals your own way.
        </p>
      ) : null}
      <TemplateOfferBanner />
      <TemplateList />
    </div>
  )
}

function TemplateList() {
  const titleId = useId()
  const templates = useQuery(publishedTemplatesQueryOptions())
  if (templates.isError || templates.data?.length === 0) return null
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          <LayoutTemplateIcon className="size-5 text-brand-coach" aria-hidden="true" />
          Start from a template
        </CardTitle>
        <CardDescription>Templates our coaches wrote fill in the steps below for you; you can change every answer. Or go straight on with your own.</CardDescription>
      </CardHeader>
      <CardContent>
        {templates.data ? (
          <ul className="grid gap-3 sm:grid-cols-2" aria-label="Goal templates">
            {templates.data.map((template) => (
              <li key={template.versionId} className="flex flex-col justify-between gap-3 rounded-lg border p-3">
                <div className="space-y-1">
                  <h3 className="font-semibold">{template.name}</h3>
                  <p className="text-sm text-muted-foreground">{template.audience}</p>
                </div>
                <Button asChild variant="outline" size="sm" className="self-start">
                  <Link to="/goal-intake" search={{ template: template.versionId }} aria-label={`Use this template: ${template.name}`}>
                    Use this template
                  </Link>
                </Button>
              </li>
            ))}
          </ul>
        ) : (
          <Spinner label="Loading templates..." showLabel />
        )}
      </CardContent>
    </Card>
  )
}
