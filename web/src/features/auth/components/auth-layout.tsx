import type { ReactNode } from 'react'
import { AppShell } from '#web/components/app-shell'
import { cn } from '#web/lib/utils'

/** The frame of the /auth screens: the site header (without the visitor links), a centred column. */
export function AuthLayout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    // nav={false}: no "Log In" / "Get Started" links on the sign-in screen itself.
    <AppShell nav={false} mainClassName="flex justify-center px-4 py-10 sm:py-14">
      <div className={cn('w-full max-w-md', className)}>{children}</div>
    </AppShell>
  )
}

/** A short centred status while the screen moves on by itself (e.g. after signing in). */
export function AuthProgress({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-4 py-10 text-center">
      <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
      <p role="status" className="text-muted-foreground">
        {children}
      </p>
    </div>
  )
}
