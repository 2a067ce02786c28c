/**
 * Operations: the operator's view of the service (`/ops`, `npm run calls:status`), read from
 * PostgreSQL and from the sources of Vapi's lines and the queues.
 */
import type { OpsSnapshot } from '#common/ops'
import type { Db } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import type { LineState } from '#server/services/calls'
import { operationsSnapshot } from './snapshot'

export { operationsSnapshot } from './snapshot'

type OpsDeps = {
  db: Db
  clock: Clock
  lines: () => Promise<LineState>
  queues: () => Promise<Array<{ queue: string; waiting: number; oldestWaitingSeconds: number }>>
}

export function createOps(deps: OpsDeps) {
  return {
    snapshot: (): Promise<OpsSnapshot> => operationsSnapshot({ db: deps.db, now: deps.clock.now(), lines: deps.lines, queues: deps.queues }),
  }
}
