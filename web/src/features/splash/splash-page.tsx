import { useNavigate, useRouter } from '@tanstack/react-router'
import { useEffect } from 'react'
import { BrandName, LogoMark } from '#web/components/brand'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'

/** Spec 1 §9: the splash shows for 2 s, then goes to /auth. */
const SPLASH_DELAY_MS = 2000

export function SplashPage() {
  useDocumentTitle('Welcome')
  const navigate = useNavigate()
  const router = useRouter()

  useEffect(() => {
    // Fetch the next screen's code while the splash is showing, so the hand-over is instant.
    void router.preloadRoute({ to: '/auth' }).catch(() => undefined)
    const timer = window.setTimeout(() => {
      void navigate({ to: '/auth', replace: true })
    }, SPLASH_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [navigate, router])

  return (
    <main
      id="main-content"
      className="flex min-h-dvh flex-col items-center justify-center gap-8 bg-[radial-gradient(ellipse_at_center,_#eef2ff_0%,_var(--background)_65%)] px-4 text-center"
    >
      <LogoMark className="size-20 drop-shadow-md" />
      <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">
        Welcome to <BrandName />
      </h1>
      <Spinner size="lg" label="Loading Momentum Coach" />
    </main>
  )
}
