import { createFileRoute } from '@tanstack/react-router'
import { SplashPage } from '#web/features/splash/splash-page'

export const Route = createFileRoute('/splash')({
  component: SplashPage,
})
