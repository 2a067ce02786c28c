import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateTOTP } from '@oslojs/otp'
import type { Page } from '@playwright/test'
import { ROOT } from '../helpers/process'
import { seriousA11yViolations } from './support/a11y'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, gotoReady, test, uniqueEmail } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * /ops, the operator's view (docs/decisions/075), on a server of its own: its data directory gets
 * an operator from `npm run staff:add`'s script while no server holds it, as an administrator would.
 */
test.describe.configure({ mode: 'serial' })

const PASSWORD = 'steady-maple-lantern-42'
const operator = { email: uniqueEmail('operator'), password: PASSWORD }
let dataDir: string
let first: AppServer | undefined
let server: AppServer

async function signUp(origin: string, email: string): Promise<void> {
  const response = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', 'x-forwarded-for': '10.250.0.1' },
    body: JSON.stringify({ fullName: 'Olu Operator', email, phoneNumber: '2025550123', password: PASSWORD, confirmPassword: PASSWORD, communicationConsent: true, termsAccepted: true }),
  })
  if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`)
}

test.beforeAll(async () => {
  // Two server starts and the command: longer than a test's own limit on a busy machine.
  test.setTimeout(180_000)
  dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-ops-'))
  // The operator's account, made as anyone's is; then the server stops and the command gives it the role.
  first = await startAppServer({}, { dataDir })
  await signUp(first.baseUrl, operator.email)
  await first.stop()
  first = undefined
  const added = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/staff.ts', 'add', '--role', 'operator', operator.email], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'error' },
    encoding: 'utf8',
  })
  if (added.status !== 0) throw new Error(`staff:add failed: ${added.stdout}${added.stderr}`)
  server = await startAppServer({}, { dataDir })
})

test.afterAll(async () => {
  // A start that timed out leaves no server behind.
  await first?.stop()
  await server?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

async function signInViaApi(page: Page, email: string) {
  const origin = server.baseUrl
  const response = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email, password: PASSWORD } })
  expect(response.status()).toBe(200)
  return response.json() as Promise<Record<string, unknown>>
}

test('a member who opens /ops finds no such page', async ({ page }) => {
  await signUpViaApi(page, { origin: server.baseUrl, paid: 'elite', logFile: server.logFile })
  await gotoReady(page, `${server.baseUrl}/ops`)
  await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Operations' })).toHaveCount(0)
})

test('an operator without two-factor sign-in is sent to set it up first', async ({ page }) => {
  await signInViaApi(page, operator.email)
  await gotoReady(page, `${server.baseUrl}/ops`)
  await expect(page).toHaveURL(/\/account\?.*setup=two-factor/)
  await expect(page.getByRole('heading', { name: 'Operations' })).toHaveCount(0)
})

test('an operator with two-factor sign-in sees the service’s state, and it passes axe', async ({ page }) => {
  const origin = server.baseUrl
  await signInViaApi(page, operator.email)
  // Two-factor sign-in turned on as the account page does it: the password, then a code from the app.
  const setup = await page.request.post(`${origin}/api/account/two-factor/setup`, { headers: { origin }, data: { currentPassword: PASSWORD } })
  expect(setup.status()).toBe(200)
  const { secret } = (await setup.json()) as { secret: string }
  const code = generateTOTP(decodeBase32IgnorePadding(secret.replace(/\s/g, '')), 30, 6)
  const enabled = await page.request.post(`${origin}/api/account/two-factor`, { headers: { origin }, data: { code } })
  expect(enabled.status()).toBe(200)

  await gotoReady(page, `${origin}/ops`)
  await expect(page.getByRole('heading', { name: 'Operations', level: 1 })).toBeVisible()
  for (const section of ['Calls', 'Lateness and lines', 'Queues', 'Texts refused', 'Parked webhook messages (0)', 'Stuck calls']) {
    await expect(page.getByRole('heading', { name: section, level: 2, exact: true })).toBeVisible()
  }
  await expect(page.getByText(/As of .*, refreshed every 10 seconds/)).toBeVisible()
  // The embedded runner's queues, each with nothing waiting.
  await expect(page.getByRole('row', { name: /^calls 0 0 s$/ })).toBeVisible()
  expect(await seriousA11yViolations(page)).toEqual([])
})
