import { useQueryErrorResetBoundary } from '@tanstack/react-query'
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { useEffect } from 'react'
import { AppShell } from './app-shell'
import { Button } from './ui/button'
import { Spinner } from './ui/spinner'
import { useDocumentTitle } from './use-document-title'

/** Shown by the router while a slow route loads (after its pending delay). */
export function PagePending() {
  return (
    <div className="flex min-h-dvh items-center justify-center">
      <Spinner size="lg" label="Loading page" />
    </div>
  )
}

/** Shown when a route's loader or component throws; offers a retry that also resets failed queries. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter()
  const queryErrorResetBoundary = useQueryErrorResetBoundary()
  useDocumentTitle('Something went wrong')

  useEffect(() => {
    queryErrorResetBoundary.reset()
  }, [queryErrorResetBoundary])

  useEffect(() => {
    if (import.meta.env.DEV) console.error(error)
  }, [error])

  return (
    <AppShell mainClassName="flex items-center justify-center px-4 py-16">
      <div className="flex max-w-md flex-col items-center text-center">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Something went wrong</h1>
        <p className="mt-3 text-muted-foreground">
          This page could not be shown. Please try again; if it keeps happening, come back in a few minutes.
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <Button
            onClick={() => {
              reset()
              void router.invalidate()
            }}
          >
            Try again
          </Button>
          <Button asChild variant="outline">
            <Link to="/">Go to the home page</Link>
          </Button>
        </div>
      </div>
    </AppShell>
  )
}
