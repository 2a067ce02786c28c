import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function ChatPage() {
  return (
    <ComingSoonPage
      title="Chat with your coach"
      purpose="Type or talk to your AI coach, and look back over your saved conversations."
    />
  )
}
