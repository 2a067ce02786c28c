import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from '@playwright/test'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/e2e/support/chromium'
import { startMailSink } from './test/e2e/support/smtp-sink'

// The production build served by the real entry on a random port with a fresh DATA_DIR.
// Set once in the main process; the test workers inherit it.
process.env.E2E_PORT ??= String(20_000 + Math.floor(Math.random() * 30_000))
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'mc-e2e-'))
process.env.E2E_MAIL_DIR ??= join(process.env.E2E_DATA_DIR, 'mail')
const port = Number(process.env.E2E_PORT)

// A real SMTP server for the app's email, started once (in the main process, before the app).
if (!process.env.E2E_SMTP_PORT) {
  process.env.E2E_SMTP_PORT = String(port + 1)
  startMailSink(Number(process.env.E2E_SMTP_PORT), process.env.E2E_MAIL_DIR)
}
const baseURL = `http://127.0.0.1:${port}`
process.env.E2E_BASE_URL ??= baseURL

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list'], ['json']],
  outputDir: '.tmp/playwright-results',
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: {
    // The compiled server, as `npm start` runs it (rebuilt first if a source changed). The log goes
    // to DATA_DIR/server.log: without Twilio a code to verify a number is written there.
    command: `node scripts/ensure-build.mjs --server && node dist/server/index.js >> '${join(process.env.E2E_DATA_DIR, 'server.log')}'`,
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: baseURL,
      DATA_DIR: process.env.E2E_DATA_DIR,
      SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
      LOG_LEVEL: 'info',
      // The embedded defaults: no PostgreSQL, Redis, SMTP, Stripe or Vapi unless a spec starts a fake.
      DATABASE_URL: '',
      REDIS_URL: '',
    },
  },
})
