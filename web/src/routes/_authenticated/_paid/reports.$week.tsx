import { createFileRoute } from '@tanstack/react-router'
import { ReportPage } from '#web/features/reports/report-page'

export const Route = createFileRoute('/_authenticated/_paid/reports/$week')({
  component: WeekRoute,
})

function WeekRoute() {
  const { week } = Route.useParams()
  return <ReportPage week={week} />
}
