import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function OptInPage() {
  return (
    <ComingSoonPage
      title="Get updates by text"
      purpose="Opt in to text messages so your coach can send reminders and check-ins between calls."
    />
  )
}
