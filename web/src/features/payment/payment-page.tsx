import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function PaymentPage() {
  return <ComingSoonPage title="Choose your plan" purpose="Pick the monthly coaching plan that fits you." />
}
