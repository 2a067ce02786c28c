/** The goal intake: the user's goal records, and saving the whole wizard in one transaction. */
import type { SaveGoalsBody } from '#common/goals'
import type { Db } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import { loadGoals, saveGoals } from './goals'

export { loadGoals, saveGoals } from './goals'

export function createGoals(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps
  return {
    load: (userId: string) => loadGoals(db, userId),
    save: (userId: string, body: SaveGoalsBody) => saveGoals(db, userId, body, clock.now()),
  }
}
