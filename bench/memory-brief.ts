/**
 * The coach brief (docs/decisions/083) for a person with two years of daily calls (730 call
 * episodes, chats, texts, voice and coach sessions; 540 facts of which 300 current; 1,460
 * commitments): built with the words of a turn, in pairs with its baseline, one plain SQL statement
 * that reads the same rows (the current facts, the last episodes, the open commitments) without
 * ranking or composing them. Goal: p99 of the build within 20 ms (the issue's), and the median
 * ratio to the baseline printed.
 */
import { and, desc, eq, isNull } from 'drizzle-orm'
import { commitments, memoryEpisodes, memoryFacts } from '#server/db/schema'
import { buildBrief } from '#server/services/memory'
import { BRIEF_QUERIES, insertPerson, seedTwoYears } from '../test/memory/people'
import { envNumber, ok, postgresDatabase, quantile } from './calls-setup'

const GOAL_P99_MS = 20

export async function memoryBriefBench(): Promise<boolean> {
  const runs = envNumber('BENCH_BRIEF_RUNS', 400)
  const bench = await postgresDatabase('memory_brief')
  if (!bench) {
    console.log('Coach brief: needs PostgreSQL; skipped')
    return true
  }
  try {
    const { db } = bench.database
    const now = new Date('2026-12-01T12:00:00Z')
    const userId = await insertPerson(db, { name: 'Long Time Member' })
    const counts = await seedTwoYears(db, userId, now)
    const baseline = () =>
      Promise.all([
        db.select().from(memoryFacts).where(and(eq(memoryFacts.userId, userId), isNull(memoryFacts.validTo))).orderBy(desc(memoryFacts.validFrom)),
        db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, userId)).orderBy(desc(memoryEpisodes.occurredAt)).limit(3),
        db.select().from(commitments).where(and(eq(commitments.userId, userId), eq(commitments.status, 'open'))).limit(5),
      ])
    const build = (i: number) => buildBrief(db, userId, now, BRIEF_QUERIES[i % BRIEF_QUERIES.length]!)
    for (let i = 0; i < 30; i++) await Promise.all([baseline(), build(i)])
    const app: number[] = []
    const bare: number[] = []
    let tokens = 0
    for (let i = 0; i < runs; i++) {
      // Alternating order: each pair sees nearly the same machine.
      for (const which of i % 2 === 0 ? (['bare', 'app'] as const) : (['app', 'bare'] as const)) {
        const started = performance.now()
        if (which === 'app') tokens = Math.max(tokens, (await build(i))!.tokens)
        else await baseline()
        ;(which === 'app' ? app : bare).push(performance.now() - started)
      }
    }
    const ratios = app.map((ms, i) => ms / bare[i]!)
    const p99 = quantile(app, 0.99)
    console.log(`  history: ${counts.episodes} episodes, ${counts.facts} facts (${counts.currentFacts} current), ${counts.commitments} commitments; largest brief ${tokens} tokens`)
    console.log(`  brief: p50 ${quantile(app, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; baseline reads: p50 ${quantile(bare, 0.5).toFixed(1)} ms, p99 ${quantile(bare, 0.99).toFixed(1)} ms`)
    console.log(`  ratio to the baseline (median of pairs): ${quantile(ratios, 0.5).toFixed(2)} (IQR ${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)})`)
    const pass = p99 <= GOAL_P99_MS && tokens <= 1500
    console.log(`  goal: p99 within ${GOAL_P99_MS} ms and at most 1,500 tokens: ${ok(pass)}`)
    return pass
  } finally {
    await bench.drop()
  }
}
