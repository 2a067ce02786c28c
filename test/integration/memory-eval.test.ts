/**
 * The memory evaluation's scenarios (test/memory/, issue 37) through the real memory on PostgreSQL:
 * recall of current facts in the brief, nothing stale, deleted, crisis or leaked shown, every brief
 * within its budget. The build time is measured by `npm run eval:memory`, not here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { runScenarios, type Evaluation } from '../memory/run'
import { SCENARIOS } from '../memory/scenarios/index'

describe('memory evaluation scenarios', () => {
  let database: TestDatabase
  let evaluation: Evaluation
  beforeAll(async () => {
    database = await createTestDatabase()
    evaluation = await runScenarios(database.db, SCENARIOS)
  }, 120_000)
  afterAll(async () => {
    await database?.destroy()
  })

  it('has at least 30 scenarios of 3 to 6 sessions', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(30)
    for (const scenario of SCENARIOS) expect(scenario.sessions.length, scenario.name).toBeGreaterThanOrEqual(3)
    for (const scenario of SCENARIOS) expect(scenario.sessions.length, scenario.name).toBeLessThanOrEqual(6)
  })

  it('keeps the current facts in the brief (recall >= 95%)', () => {
    expect(evaluation.recall).toBeGreaterThanOrEqual(95)
  })

  it('never shows a replaced or a deleted fact, never keeps crisis words', () => {
    const failures = evaluation.results.flatMap((result) => result.failures.map((failure) => `${result.name} ${failure}`))
    expect({ stale: evaluation.total.stale, resurfaced: evaluation.total.resurfaced, crisisStored: evaluation.total.crisisStored, failures: failures.filter((f) => /stale|deleted|crisis/.test(f)) }).toEqual({
      stale: 0,
      resurfaced: 0,
      crisisStored: 0,
      failures: [],
    })
  })

  it('keeps every brief within its token budget', () => {
    expect(evaluation.total.overBudget).toBe(0)
    expect(evaluation.total.checks).toBeGreaterThan(60)
  })

  it('shows no inferred health fact and nothing said while paused; errors none', () => {
    const failures = evaluation.results.flatMap((result) => result.failures.map((failure) => `${result.name} ${failure}`))
    expect(failures).toEqual([])
  })
})
