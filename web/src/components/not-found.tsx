import { Link } from '@tanstack/react-router'
import { AppShell } from './app-shell'
import { Button } from './ui/button'
import { useDocumentTitle } from './use-document-title'

/** The page for any path outside the route map (spec: 'Oops! Page not found' + 'Return to Home'). */
export function NotFoundPage() {
  useDocumentTitle('Page not found')
  return (
    <AppShell mainClassName="flex items-center justify-center px-4 py-16">
      <div className="flex max-w-md flex-col items-center text-center">
        <p className="text-8xl font-extrabold tracking-tight text-brand-momentum sm:text-9xl">404</p>
        <h1 className="mt-4 text-2xl font-bold tracking-tight sm:text-3xl">Oops! Page not found</h1>
        <p className="mt-3 text-muted-foreground">
          The page you are looking for does not exist or may have moved.
        </p>
        <Button asChild size="lg" className="mt-8">
          <Link to="/">Return to Home</Link>
        </Button>
      </div>
    </AppShell>
  )
}
