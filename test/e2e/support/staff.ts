/**
 * Staff in the browser tests (docs/decisions/072). Staff are made by `npm run staff:add` on the
 * server's database, and the embedded database (PGlite in DATA_DIR) is held by the server while it
 * runs, so the suite's shared server cannot get staff. `startStaffServer` makes a data directory of
 * its own, runs the command on it for each staff member (as an operator would, before starting the
 * server), then starts a server on it (startAppServer); the invitations go to the e2e mail sink.
 * `signInAsStaff` then follows a member's invitation (the password), sets up two-factor sign-in
 * unless told not to, and signs the page in with its code, through the API from the page's own
 * context, so the browser holds the session.
 *
 *   const server = await startStaffServer([{ email: uniqueEmail('ops'), fullName: 'Dana Lee', roles: ['operator'] }])
 *   const dana = await signInAsStaff(page, server, server.staff[0]!)   // two-factor sign-in on
 *   await page.goto(`${server.baseUrl}/ops`)
 *   ...
 *   await server.stop()
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import type { StaffRole } from '#common/staff'
import { ROOT } from '../../helpers/process'
import { startAppServer, type AppServer } from './app-server'
import { tokenOf, linkIn, waitForEmail } from './mail'
import { nextCode, turnOnTwoFactorViaApi, type TwoFactorKey } from './two-factor'

export type StaffAccount = { email: string; fullName: string; roles: StaffRole[] }
export type StaffServer = AppServer & { staff: StaffAccount[] }
export type SignedInStaff = StaffAccount & { password: string; twoFactor: { key: TwoFactorKey; recoveryCodes: string[] } | null }

const STAFF_PASSWORD = 'harbor-lantern-orchard-31'

/** Runs `npm run staff:add` (scripts/staff.ts) on `dataDir` for one person; rejects with its output unless it succeeds. */
export function addStaff(dataDir: string, staff: StaffAccount): Promise<void> {
  const args = ['--import', 'tsx', 'scripts/staff.ts', 'add', ...staff.roles.flatMap((role) => ['--role', role]), '--name', staff.fullName, staff.email]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`staff:add exited ${code}:\n${output}`))))
  })
}

/** A server of its own whose database holds `staff` (made by `npm run staff:add` before it started). */
export async function startStaffServer(staff: StaffAccount[], env: Record<string, string> = {}): Promise<StaffServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mc-e2e-staff-'))
  try {
    for (const person of staff) await addStaff(dataDir, person)
    const server = await startAppServer(env, { dataDir })
    return {
      ...server,
      staff,
      async stop() {
        await server.stop()
        rmSync(dataDir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
}

/** Follows the invitation `npm run staff:add` emailed (the password chosen, as its link does): the page is signed in, without two-factor sign-in yet. */
export async function acceptInvitation(page: Page, origin: string, staff: StaffAccount, password = STAFF_PASSWORD): Promise<void> {
  const token = tokenOf(linkIn(await waitForEmail(staff.email, /^You are invited to Momentum Coach$/)))
  const accepted = await page.request.post(`${origin}/api/auth/reset-password`, { headers: { origin }, data: { token, password, confirmPassword: password } })
  if (accepted.status() !== 200) throw new Error(`the invitation was not accepted: ${accepted.status()} ${await accepted.text()}`)
}

/**
 * A staff member of `server`, signed in on `page`: the invitation followed, then (unless
 * `twoFactor: false`) two-factor sign-in set up and a fresh sign-in with its code, as a staff member
 * would. Their password and two-factor key (for more codes) come back.
 */
export async function signInAsStaff(page: Page, server: StaffServer, staff: StaffAccount, options: { twoFactor?: boolean } = {}): Promise<SignedInStaff> {
  const origin = server.baseUrl
  await acceptInvitation(page, origin, staff)
  if (options.twoFactor === false) return { ...staff, password: STAFF_PASSWORD, twoFactor: null }
  const twoFactor = await turnOnTwoFactorViaApi(page.request, origin, STAFF_PASSWORD)
  const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: staff.email, password: STAFF_PASSWORD } })
  if (login.status() !== 200 || !((await login.json()) as { twoFactorRequired?: boolean }).twoFactorRequired) throw new Error(`sign-in did not ask for the code: ${login.status()}`)
  const code = await page.request.post(`${origin}/api/auth/two-factor`, { headers: { origin }, data: { code: nextCode(twoFactor.key) } })
  if (code.status() !== 200) throw new Error(`the sign-in code was refused: ${code.status()} ${await code.text()}`)
  return { ...staff, password: STAFF_PASSWORD, twoFactor }
}

/**
 * A second sign-in of a staff member `signInAsStaff` signed in before (another browser): the
 * password, then one of their recovery codes (the authenticator's codes of this 30-second window
 * may be used up already).
 */
export async function signInAgain(page: Page, server: StaffServer, staff: SignedInStaff): Promise<void> {
  const origin = server.baseUrl
  const recoveryCode = staff.twoFactor?.recoveryCodes.shift()
  if (!recoveryCode) throw new Error(`${staff.email} has no recovery code left (or no two-factor sign-in)`)
  const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: staff.email, password: staff.password } })
  if (login.status() !== 200) throw new Error(`sign-in failed: ${login.status()} ${await login.text()}`)
  const code = await page.request.post(`${origin}/api/auth/two-factor`, { headers: { origin }, data: { code: recoveryCode } })
  if (code.status() !== 200) throw new Error(`the recovery code was refused: ${code.status()} ${await code.text()}`)
}
