import { createFileRoute } from '@tanstack/react-router'
import { LandingPage } from '#web/features/landing/landing-page'

// Prerendered at build time (docs/decisions/052): the page, its plans included
// (common/plan-catalogue.ts), needs no data from the server.
export const Route = createFileRoute('/')({
  component: LandingPage,
})
