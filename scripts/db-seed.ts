/**
 * `npm run db:seed`: applies the migrations, then loads the starter course catalogue and the
 * starter goal templates into DATABASE_URL, or into the embedded PGlite in DATA_DIR. Safe to run
 * any number of times.
 */
import { ConfigError, loadConfig } from '#server/config'
import { openDatabase } from '#server/db/client'
import { systemClock } from '#server/lib/clock'
import { seedCourses } from '#server/services/courses'
import { seedGoalTemplates } from '#server/services/goal-templates'

try {
  const config = loadConfig()
  const database = await openDatabase(
    config.databaseUrl ? { databaseUrl: config.databaseUrl, maxConnections: 2 } : { dataDir: config.dataDir },
  )
  try {
    await database.migrate()
    const report = await seedCourses(database.db, { now: systemClock.now() })
    console.log(`Course catalogue loaded (${database.driver}): ${report.courses} courses, ${report.lessons} lessons, ${report.quizzes} quiz questions.`)
    const templates = await seedGoalTemplates(database.db, { now: systemClock.now() })
    console.log(`Starter goal templates loaded: ${templates.templates} templates, ${templates.versionsAdded} new versions.`)
  } finally {
    await database.close()
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Seeding failed: ${(error as Error).message}`)
  process.exit(1)
}
