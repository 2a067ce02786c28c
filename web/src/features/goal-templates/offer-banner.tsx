/**
 * The goal template an Elite member's coach suggested (docs/decisions/081), on the dashboard and at
 * the start of the goal intake: "Dana suggested a template: …" with Accept (the wizard opens
 * prefilled from it) and Decline. Nothing while there is no open offer.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { SparklesIcon } from 'lucide-react'
import { useId } from 'react'
import { offerHeadline } from '#common/goal-templates'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { toast } from '#web/lib/toast'
import { answerTemplateOffer, goalTemplateKeys, templateOfferQueryOptions } from './api'

export function TemplateOfferBanner() {
  const titleId = useId()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const offer = useQuery(templateOfferQueryOptions())
  const answer = useMutation({
    mutationFn: ({ offerId, choice }: { offerId: string; choice: 'accept' | 'decline' }) => answerTemplateOffer(offerId, choice),
    onSuccess: async (answered) => {
      queryClient.setQueryData(goalTemplateKeys.offer, null)
      if (answered.status === 'accepted') await navigate({ to: '/goal-intake', search: { template: answered.template.versionId } })
      else void toast({ title: 'Template declined', description: 'You can set your goals your own way.' })
    },
    onError: (error) => void toast({ title: 'Not answered', description: error instanceof Error ? error.message : 'Please try again.', variant: 'destructive' }),
  })
  if (!offer.data) return null
  const { offerId, template } = offer.data
  return (
    <Card role="region" aria-labelledby={titleId} className="border-brand-coach/40">
      <CardContent className="flex flex-wrap items-center justify-between gap-4">
        <div className="flex items-start gap-3">
          <SparklesIcon className="mt-1 size-5 shrink-0 text-brand-coach" aria-hidden="true" />
          <div className="space-y-1">
            <h2 id={titleId} className="font-semibold">
              {offerHeadline(offer.data)}
            </h2>
            <p className="text-sm text-muted-foreground">
              {template.audience} Accepting opens your goal setting filled in from it; you can change every answer.
            </p>
          </div>
        </div>
        <div className="flex gap-2">
          <Button onClick={() => answer.mutate({ offerId, choice: 'accept' })} disabled={answer.isPending}>
            Accept
          </Button>
          <Button variant="outline" onClick={() => answer.mutate({ offerId, choice: 'decline' })} disabled={answer.isPending}>
            Decline
          </Button>
        </div>
      </CardContent>
    </Card>
  )
}
