import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function GoalIntakePage() {
  return (
    <ComingSoonPage
      title="Set your goals"
      purpose="Tell your coach where you stand in each life area, what you want from your work and career, and when to call you."
    />
  )
}
