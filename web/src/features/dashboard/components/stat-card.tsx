import { useId } from 'react'
import { Card, CardContent } from '#web/components/ui/card'

type StatState = 'loading' | 'ready' | 'failed'

/** One of the four stat cards; a failed load shows a dash instead of a number. */
export function StatCard({ title, value, suffix, state }: { title: string; value: number; suffix?: string; state: StatState }) {
  const id = useId()
  return (
    <Card role="group" aria-labelledby={id} className="gap-2 py-5">
      <CardContent className="space-y-1">
        <p id={id} className="text-sm font-medium text-muted-foreground">
          {title}
        </p>
        <p className="text-3xl font-bold tracking-tight" aria-busy={state === 'loading'}>
          {state === 'ready' ? (
            <>
              {value}
              {suffix ? <span className="text-base font-medium text-muted-foreground">{suffix}</span> : null}
            </>
          ) : state === 'failed' ? (
            <>
              <span aria-hidden="true">—</span>
              <span className="sr-only">Not available</span>
            </>
          ) : (
            <>
              <span aria-hidden="true" className="text-muted-foreground">
                …
              </span>
              <span className="sr-only">Loading</span>
            </>
          )}
        </p>
      </CardContent>
    </Card>
  )
}
