import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function AuthPage() {
  return (
    <ComingSoonPage
      title="Sign in or create an account"
      purpose="Log in to your coaching account, or create one to get started."
    />
  )
}
