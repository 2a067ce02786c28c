import { ComingSoonPage } from '../../components/coming-soon-page'

/** Placeholder until this screen is built; keeps the route loadable with its h1. */
export function DiagnosticsPage() {
  return (
    <ComingSoonPage
      title="Diagnostics"
      purpose="Checks of the server functions the app depends on, for troubleshooting."
    />
  )
}
