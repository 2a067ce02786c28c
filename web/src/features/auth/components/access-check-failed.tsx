import { useQueryClient } from '@tanstack/react-query'
import { useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { useState } from 'react'
import { Button } from '#web/components/ui/button'
import { meQueryOptions } from '#web/features/auth/api'

/**
 * When GET /api/me itself fails (no answer, a 5xx): say so and offer to ask again. `onAnswered`
 * runs once the server has answered the retry (the query cache holds the answer by then).
 */
export function AccessCheckFailed({ onAnswered }: { onAnswered?: () => void }) {
  const queryClient = useQueryClient()
  const [retrying, setRetrying] = useState(false)

  async function retry() {
    setRetrying(true)
    try {
      await queryClient.fetchQuery(meQueryOptions())
    } catch {
      setRetrying(false)
      return
    }
    onAnswered?.()
  }

  return (
    <main id="main-content" className="flex min-h-dvh items-center justify-center px-4">
      <div role="alert" className="flex max-w-md flex-col items-center gap-4 text-center">
        <h1 className="text-2xl font-bold tracking-tight">We couldn't check your account</h1>
        <p className="text-muted-foreground">
          Unable to connect to our servers. Please check your internet connection and try again.
        </p>
        <Button onClick={() => void retry()} disabled={retrying}>
          {retrying ? 'Trying again…' : 'Try again'}
        </Button>
      </div>
    </main>
  )
}

/** The guarded layouts' error view: their beforeLoad failed to get an answer from GET /api/me. */
export function GuardCheckFailed({ reset }: ErrorComponentProps) {
  const router = useRouter()
  return (
    <AccessCheckFailed
      onAnswered={() => {
        reset()
        void router.invalidate()
      }}
    />
  )
}
