import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function DashboardPage() {
  return (
    <ComingSoonPage
      title="Dashboard"
      purpose="Your scores across life areas, this week's focus and your recent coaching calls."
    />
  )
}
