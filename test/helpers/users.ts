import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { PlanId } from '#common/plans'
import { createSession } from '#server/auth/session'
import { users, type User } from '#server/db/schema'
import { activateTestingPlan } from '#server/services/billing'
import { insertUser } from './factories'

export type SignedIn = { user: User; cookie: string; headers: { cookie: string; origin: string } }

/**
 * A user with a live session, written straight to the database (no password hashing), for
 * integration tests of routes that need a session. `paid` records a testing-mode plan.
 */
export async function signedInUser(
  app: FastifyInstance,
  options: { paid?: PlanId | false; confirmed?: boolean; fullName?: string } = {},
): Promise<SignedIn> {
  let user = await insertUser(app.db, options.fullName ? { fullName: options.fullName } : {})
  if (options.confirmed !== false) {
    ;[user] = (await app.db.update(users).set({ emailConfirmedAt: new Date() }).where(eq(users.id, user.id)).returning()) as [User]
  }
  if (options.paid) await activateTestingPlan(app.db, user.id, options.paid, new Date())
  const session = await createSession(app.db, app.services.clock, user.id)
  const cookieName = app.config.secureCookies ? '__Host-session' : 'session'
  const cookie = `${cookieName}=${session.token}`
  return { user, cookie, headers: { cookie, origin: app.config.appOrigin } }
}
