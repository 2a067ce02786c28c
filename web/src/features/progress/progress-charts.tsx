/**
 * The progress page's four charts, drawn with recharts. This module (and recharts with it) is
 * loaded only by /progress, and only once there is a series to draw (React.lazy in
 * progress-page.tsx), so no other page's JavaScript carries it.
 *
 * Each chart is a region named by its heading; the SVG carries a title and a description, and
 * the same figures are in a table (a details element under the chart) for screen readers,
 * keyboard users and anyone who prefers numbers.
 */
import { useId, type ReactNode } from 'react'
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { ProgressResponse, ProgressWeek } from '#common/progress'
import { weekLabel } from '#common/reports'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { areaTitle } from '#web/features/calls/format'

const PRIMARY = 'var(--primary)'
const DESTRUCTIVE = 'var(--destructive)'
const CHART_HEIGHT = 256
const TICK = { fontSize: 12, fill: '#4b5563' }

/** "Nov 8": the Sunday a week ends on, for an axis. */
const shortWeek = (weekEnding: string) => new Date(`${weekEnding}T12:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
/** "Nov 9 – Nov 15, 2026 (so far)": a week, for a table. */
const weekName = (week: ProgressWeek) => `${weekLabel(week.weekEnding)}${week.current ? ' (so far)' : ''}`
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

function ChartCard({ title, description, table, children }: { title: string; description: string; table: ReactNode; children: ReactNode }) {
  const id = useId()
  return (
    <Card role="region" aria-labelledby={`${id}-title`} data-testid="progress-chart">
      <CardHeader>
        <CardTitle as="h2" id={`${id}-title`}>
          {title}
        </CardTitle>
        <p id={`${id}-desc`} className="text-sm text-muted-foreground">
          {description}
        </p>
      </CardHeader>
      <CardContent className="space-y-4">
        <figure aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`} className="m-0">
          {children}
        </figure>
        <details className="rounded-md border px-3 py-2">
          <summary className="cursor-pointer rounded-sm text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring">
            {title}: the figures as a table
          </summary>
          <div className="mt-3 overflow-x-auto">{table}</div>
        </details>
      </CardContent>
    </Card>
  )
}

function Table({ caption, head, rows }: { caption: string; head: readonly string[]; rows: ReadonlyArray<readonly [string, ...string[]]> }) {
  return (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr className="border-b">
          {head.map((cell) => (
            <th key={cell} scope="col" className="py-2 pr-4 font-medium">
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map(([first, ...rest]) => (
          <tr key={first} className="border-b last:border-0">
            <th scope="row" className="py-2 pr-4 font-normal">
              {first}
            </th>
            {rest.map((cell, index) => (
              <td key={index} className="py-2 pr-4 tabular-nums">
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export default function ProgressCharts({ progress }: { progress: ProgressResponse }) {
  const weeks = progress.weeks.map((week) => ({ ...week, label: shortWeek(week.weekEnding) }))
  const areas = progress.areas.map((area) => ({ ...area, label: areaTitle(area.area) }))
  const completed = progress.weeks.reduce((sum, week) => sum + week.callsCompleted, 0)
  const kept = progress.weeks.reduce((sum, week) => sum + week.commitmentsKept, 0)
  const missed = progress.weeks.reduce((sum, week) => sum + week.commitmentsMissed, 0)
  const moods = progress.weeks.filter((week) => week.moodAverage !== null)
  const areasCovered = progress.areas.filter((area) => area.calls > 0).length

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <ChartCard
        title="Calls per Week"
        description={`${plural(completed, 'call')} completed in these ${progress.weeks.length} weeks.`}
        table={
          <Table
            caption="Calls completed and missed, and minutes talked, each week"
            head={['Week', 'Completed', 'Missed', 'Minutes talked']}
            rows={progress.weeks.map((week) => [weekName(week), String(week.callsCompleted), String(week.callsMissed), String(week.minutesTalked)])}
          />
        }
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart data={weeks} title="Calls per week" desc="Calls completed and missed each week" margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={TICK} interval="preserveStartEnd" />
            <YAxis allowDecimals={false} tick={TICK} />
            <Tooltip />
            <Legend />
            <Bar dataKey="callsCompleted" name="Completed" fill={PRIMARY} radius={[4, 4, 0, 0]} />
            <Bar dataKey="callsMissed" name="Missed" fill={DESTRUCTIVE} radius={[4, 4, 0, 0]} />
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>

      <ChartCard
        title="Mood over Time"
        description={moods.length === 0 ? 'No call in these weeks recorded a mood.' : 'The average mood of each week’s calls, from 1 to 10.'}
        table={
          <Table
            caption="The average mood of each week's calls, out of 10"
            head={['Week', 'Average mood']}
            rows={progress.weeks.map((week) => [weekName(week), week.moodAverage === null ? 'No mood recorded' : `${week.moodAverage} out of 10`])}
          />
        }
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <LineChart data={weeks} title="Mood over time" desc="The average mood of each week's calls, from 1 to 10" margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={TICK} interval="preserveStartEnd" />
            <YAxis domain={[1, 10]} ticks={[1, 4, 7, 10]} tick={TICK} />
            <Tooltip />
            <Line type="monotone" dataKey="moodAverage" name="Average mood" stroke={PRIMARY} strokeWidth={2} dot={{ r: 4 }} connectNulls />
          </LineChart>
        </ResponsiveContainer>
      </ChartCard>

      <ChartCard
        title="Life Area Coverage"
        description={`${plural(areasCovered, 'life area')} of ${progress.areas.length} discussed in your completed calls.`}
        table={
          <Table
            caption="How many completed calls discussed each life area, and its score now"
            head={['Life area', 'Calls', 'Score now']}
            rows={progress.areas.map((area) => [areaTitle(area.area), String(area.calls), area.score === null ? 'Not rated' : `${area.score}/10`])}
          />
        }
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT + 64}>
          <BarChart data={areas} layout="vertical" title="Life area coverage" desc="Completed calls that discussed each life area" margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis type="number" allowDecimals={false} tick={TICK} />
            <YAxis type="category" dataKey="label" width={150} tick={TICK} />
            <Tooltip />
            <Bar dataKey="calls" name="Calls" fill={PRIMARY} radius={[0, 4, 4, 0]} />
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>

      <ChartCard
        title="Commitments Kept"
        description={`${plural(kept, 'commitment')} kept and ${missed} missed in these weeks.`}
        table={
          <Table
            caption="Commitments kept and missed each week"
            head={['Week', 'Kept', 'Missed']}
            rows={progress.weeks.map((week) => [weekName(week), String(week.commitmentsKept), String(week.commitmentsMissed)])}
          />
        }
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart data={weeks} title="Commitments kept" desc="Commitments kept and missed each week" margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={TICK} interval="preserveStartEnd" />
            <YAxis allowDecimals={false} tick={TICK} />
            <Tooltip />
            <Legend />
            <Bar dataKey="commitmentsKept" name="Kept" stackId="commitments" fill={PRIMARY} />
            <Bar dataKey="commitmentsMissed" name="Missed" stackId="commitments" fill={DESTRUCTIVE} radius={[4, 4, 0, 0]} />
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
    </div>
  )
}
