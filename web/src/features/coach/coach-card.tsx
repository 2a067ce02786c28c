/**
 * "Your coach" on an Elite member's dashboard (docs/decisions/078): the coach's name, bio, working
 * hours and reply-time promise, or that one is being matched. Nothing for other plans.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { UserRoundIcon } from 'lucide-react'
import { useId } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { myCoachQueryOptions } from './api'

export function CoachCard() {
  const titleId = useId()
  const coach = useQuery(myCoachQueryOptions())
  if (!coach.data || coach.data.status === 'not-elite') return null
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          <UserRoundIcon className="size-5 text-brand-coach" aria-hidden="true" />
          Your coach
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-2">
        {coach.data.status === 'matching' ? (
          <p className="text-muted-foreground">We're matching you with a coach. You'll see them here, usually within a business day.</p>
        ) : (
          <>
            <p className="text-lg font-semibold">{coach.data.coach.fullName}</p>
            {coach.data.coach.bio ? <p className="whitespace-pre-wrap">{coach.data.coach.bio}</p> : null}
            <p className="text-sm text-muted-foreground">Working hours: {coach.data.coach.hoursText}</p>
            <p className="text-sm text-muted-foreground">{coach.data.coach.replyPromise}</p>
            <Button asChild variant="outline" className="mt-2">
              <Link to="/messages">Message {coach.data.coach.fullName.split(/\s+/)[0]}</Link>
            </Button>
          </>
        )}
      </CardContent>
    </Card>
  )
}
