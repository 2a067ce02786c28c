import { Link } from '@tanstack/react-router'
import { ConstructionIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { AppShell } from './app-shell'
import { Button } from './ui/button'
import { Card, CardContent } from './ui/card'
import { useDocumentTitle } from './use-document-title'

export type ComingSoonPageProps = {
  /** The screen's name; rendered as the page's only h1. */
  title: string
  /** One sentence on what this screen will do. */
  purpose: string
  children?: ReactNode
  /** Replaces the header's visitor links (e.g. a Logout button on signed-in screens). */
  nav?: ReactNode
  /** A sidebar beside the content (e.g. the chat's conversation list). */
  sidebar?: ReactNode
}

/** A real, accessible page for a screen whose feature is not built yet. */
export function ComingSoonPage({ title, purpose, children, nav, sidebar }: ComingSoonPageProps) {
  useDocumentTitle(title)
  const content = (
    <div className="mx-auto max-w-2xl">
      <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">{title}</h1>
      <p className="mt-3 text-lg text-muted-foreground">{purpose}</p>
      <Card className="mt-8">
        <CardContent className="flex items-start gap-4">
          <ConstructionIcon className="mt-0.5 size-6 shrink-0 text-brand-coach" aria-hidden="true" />
          <div className="space-y-2">
            <p className="font-medium">This screen is not built yet.</p>
            {children}
          </div>
        </CardContent>
      </Card>
      <Button asChild variant="outline" className="mt-8">
        <Link to="/">Go to the home page</Link>
      </Button>
    </div>
  )
  return (
    <AppShell nav={nav} mainClassName="px-4 py-12 sm:px-6 sm:py-16">
      {sidebar ? (
        <div className="mx-auto grid max-w-6xl gap-8 md:grid-cols-[16rem_1fr]">
          {sidebar}
          {content}
        </div>
      ) : (
        content
      )}
    </AppShell>
  )
}
