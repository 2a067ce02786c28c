import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // The web app's own imports (`#web/…`, web/tsconfig.json), for the unit tests that import web/src.
  resolve: { alias: [{ find: /^#web\//, replacement: fileURLToPath(new URL('./web/src/', import.meta.url)) }] },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file gets its own database and Redis prefix, so files run in parallel.
    fileParallelism: true,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.tmp/vitest-report.json' },
  },
})
