/** `npm run db:migrate`: applies the committed migrations to DATABASE_URL, or to the embedded PGlite in DATA_DIR. */
import { ConfigError, loadConfig } from '../config'
import { openDatabase } from './client'

try {
  const config = loadConfig()
  const database = await openDatabase(
    config.databaseUrl ? { databaseUrl: config.databaseUrl, maxConnections: 2 } : { dataDir: config.dataDir },
  )
  await database.migrate()
  await database.close()
  console.log(`Migrations applied (${database.driver}).`)
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`)
  process.exit(1)
}
