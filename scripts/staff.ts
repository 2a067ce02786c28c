/**
 * `npm run staff:add` and `npm run staff:remove` (docs/decisions/072): staff roles, from the
 * server's command line.
 *
 *   npm run staff:add -- --role operator [--role admin] [--name "Dana Lee"] dana@example.com
 *   npm run staff:remove -- --role operator dana@example.com
 *
 * add: the account with that email gains the roles; with no account, one is made (no usable
 * password, no phone number, no consent: not a member) and an email invites the person to choose a
 * password (the app's mailer: SMTP_URL, or the log without it). remove: the account loses the
 * roles. Every grant and removal is written to the audit log, by `cli`, in the transaction that
 * makes it. Works on DATABASE_URL, or on the embedded database in DATA_DIR while nothing else has
 * it open (the server holds it while it runs: stop it first). The migrations are applied first.
 */
import { parseArgs } from 'node:util'
import pino from 'pino'
import { EmailSchema, FullNameSchema } from '#common/auth'
import { STAFF_ROLE_NAMES, STAFF_ROLES, isStaffRole, type StaffRole } from '#common/staff'
import { ConfigError, loadConfig } from '#server/config'
import { DataDirInUseError, openDatabase } from '#server/db/client'
import { createMailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import { systemClock } from '#server/lib/clock'
import { createStaff, INVITATION_TTL_DAYS } from '#server/services/staff'

const USAGE = `Usage:
  npm run staff:add -- --role <role> [--role <role>...] [--name "Full Name"] <email>
  npm run staff:remove -- --role <role> [--role <role>...] <email>
Roles: ${STAFF_ROLES.join(', ')}.`

class UsageError extends Error {}

type Command = { action: 'add' | 'remove'; email: string; roles: StaffRole[]; fullName: string | undefined }

function parseCommand(argv: string[]): Command {
  const [action, ...rest] = argv
  if (action !== 'add' && action !== 'remove') throw new UsageError('Say what to do: add or remove.')
  let parsed
  try {
    parsed = parseArgs({ args: rest, options: { role: { type: 'string', short: 'r', multiple: true }, name: { type: 'string' } }, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'Give the email address of the account.' : `Give one email address (got ${positionals.length}).`)
  const email = EmailSchema.safeParse(positionals[0])
  if (!email.success) throw new UsageError(`${positionals[0]} is not an email address.`)
  const roles = [...new Set(values.role ?? [])]
  if (roles.length === 0) throw new UsageError('Give at least one --role.')
  const unknown = roles.filter((role) => !isStaffRole(role))
  if (unknown.length > 0) throw new UsageError(`Unknown role: ${unknown.join(', ')}.`)
  if (action === 'remove' && values.name !== undefined) throw new UsageError('--name goes with add only.')
  let fullName: string | undefined
  if (values.name !== undefined) {
    const name = FullNameSchema.safeParse(values.name)
    if (!name.success) throw new UsageError(`--name: ${name.error.issues[0]?.message ?? 'not a name'}.`)
    fullName = name.data
  }
  return { action, email: email.data, roles: roles as StaffRole[], fullName }
}

const named = (roles: readonly StaffRole[]) => (roles.length === 0 ? 'none' : roles.map((role) => STAFF_ROLE_NAMES[role]).join(', '))

async function run(command: Command): Promise<number> {
  const config = loadConfig()
  // The mailer's log (the invitation itself, when SMTP_URL is not set): written at once, as the command ends soon.
  const log = pino({ level: config.logLevel, base: undefined }, pino.destination({ dest: 1, sync: true }))
  const database = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl, maxConnections: 2 } : { dataDir: config.dataDir })
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log, logLinks: !config.production })
  try {
    await database.migrate()
    const staff = createStaff({ db: database.db, clock: systemClock, mailer, appUrl: config.appUrl })
    const where = config.databaseUrl ? 'DATABASE_URL' : config.dataDir
    if (command.action === 'add') {
      const result = await staff.add({ email: command.email, fullName: command.fullName, roles: command.roles }, { kind: 'cli' })
      const who = `${result.user.fullName} <${result.user.email}>`
      console.log(result.created ? `Created a staff account for ${who} (${where}).` : `${who} has an account (${where}).`)
      if (result.granted.length > 0) console.log(`Granted: ${named(result.granted)}.`)
      if (result.alreadyHeld.length > 0) console.log(`Already held: ${named(result.alreadyHeld)}.`)
      console.log(`Roles now: ${named(result.roles)}. Each grant is in the audit log.`)
      if (result.invitation?.sent === true) {
        console.log(
          config.smtpUrl
            ? `An invitation to choose a password was emailed to ${result.user.email} (its link works for ${INVITATION_TTL_DAYS} days).`
            : `SMTP_URL is not set: the invitation email was written to the log above instead${config.production ? '' : ', with its link'} (the link works for ${INVITATION_TTL_DAYS} days).`,
        )
      } else if (result.invitation?.sent === false) {
        console.error(
          `The invitation email could not be sent (${result.invitation.error}). The account and its roles are saved: ${result.user.email} can use "Forgot Password?" on the sign-in page to choose a password.`,
        )
        return 1
      }
      if (result.created) console.log('Staff pages ask for two-factor sign-in: they set it up after choosing the password.')
      return 0
    }
    const result = await staff.remove({ email: command.email, roles: command.roles }, { kind: 'cli' })
    const who = `${result.user.fullName} <${result.user.email}>`
    if (result.removed.length > 0) console.log(`Removed from ${who}: ${named(result.removed)}.`)
    if (result.notHeld.length > 0) console.log(`Not held by ${who}: ${named(result.notHeld)}.`)
    console.log(`Roles now: ${named(result.roles)}.${result.roles.length === 0 ? ' The account is no longer staff (it stays, as an account).' : ''}`)
    return 0
  } finally {
    mailer.close()
    await database.close()
  }
}

let exitCode: number
try {
  exitCode = await run(parseCommand(process.argv.slice(2)))
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`)
    exitCode = 2
  } else if (error instanceof ConfigError || error instanceof DataDirInUseError || error instanceof AppError) {
    console.error(error.message)
    exitCode = 1
  } else {
    console.error(`staff: failed: ${(error as Error).message}`)
    exitCode = 1
  }
}
process.exit(exitCode)
