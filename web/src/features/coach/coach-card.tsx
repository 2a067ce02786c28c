/**
 * "Your coach" on an Elite member's dashboard (docs/decisions/078): the coach's photo (or initials),
 * name, bio, working hours and reply-time promise, or that one is being matched; for other plans,
 * what Elite adds.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { UserRoundIcon } from 'lucide-react'
import { useId } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { mySessionsQueryOptions } from '#web/features/coach-sessions/api'
import { myCoachQueryOptions } from './api'
import { CoachPhoto } from './coach-photo'

export function CoachCard() {
  const titleId = useId()
  const coach = useQuery(myCoachQueryOptions())
  // The onboarding session is offered here, where a new Elite member lands after the goal intake.
  const sessions = useQuery({ ...mySessionsQueryOptions(), enabled: coach.data?.status === 'assigned' })
  if (!coach.data) return null
  if (coach.data.status === 'not-elite') return <EliteOffer />
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
            <div className="flex items-center gap-4">
              <CoachPhoto fullName={coach.data.coach.fullName} photoUrl={coach.data.coach.photoUrl} />
              <p className="text-lg font-semibold">{coach.data.coach.fullName}</p>
            </div>
            {coach.data.coach.bio ? <p className="whitespace-pre-wrap">{coach.data.coach.bio}</p> : null}
            <p className="text-sm text-muted-foreground">Working hours: {coach.data.coach.hoursText}</p>
            <p className="text-sm text-muted-foreground">{coach.data.coach.replyPromise}</p>
            {sessions.data?.onboarding.offered ? (
              <p className="font-medium">Book your onboarding session: 45 minutes with {coach.data.coach.fullName.split(/\s+/)[0]} in your first week, to set up your goals and calls together.</p>
            ) : null}
            <div className="mt-2 flex flex-wrap gap-2">
              <Button asChild variant="outline">
                <Link to="/messages">Message {coach.data.coach.fullName.split(/\s+/)[0]}</Link>
              </Button>
              <Button asChild variant="outline">
                <Link to="/sessions">{sessions.data?.onboarding.offered ? 'Book onboarding' : 'Your 1-on-1 sessions'}</Link>
              </Button>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  )
}

/** What Elite adds, for Basic and Premium: the way up, not a locked page. */
function EliteOffer() {
  const titleId = useId()
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          <UserRoundIcon className="size-5 text-brand-coach" aria-hidden="true" />A human coach with Elite
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-2">
        <p className="text-muted-foreground">Elite adds a personal coach: a monthly 1-on-1 session, an onboarding session, direct messages, and goal templates made by coaches.</p>
        <Button asChild variant="outline">
          <Link to="/payment">See Elite</Link>
        </Button>
      </CardContent>
    </Card>
  )
}
