import { eq } from 'drizzle-orm'
import { optInConsentText } from '#common/opt-in'
import type { DbExecutor } from '#server/db/client'
import { profiles } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'

export type OptInState = { optedInAt: Date | null }

export async function getOptIn(db: DbExecutor, userId: string): Promise<OptInState> {
  const [row] = await db.select({ optedInAt: profiles.smsOptedInAt }).from(profiles).where(eq(profiles.id, userId)).limit(1)
  return { optedInAt: row?.optedInAt ?? null }
}

/**
 * Records the text opt-in (the person is trusted to have sent START): the time, and the exact
 * consent text the screen showed. The screen sends back the text it showed; it must be the current
 * text for the configured number, so the record never holds words nobody was shown. Confirming
 * again records the latest consent. (Opt-in needs completed payment: the route's guard decides.)
 */
export async function recordOptIn(db: DbExecutor, userId: string, input: { smsNumber: string; consentText: string; now: Date }): Promise<Date> {
  const expected = optInConsentText(input.smsNumber)
  if (input.consentText.trim() !== expected) throw new AppError('CONSENT_TEXT_CHANGED', undefined, { field: 'consentText' })
  await db
    .update(profiles)
    .set({ smsOptedInAt: input.now, smsOptInConsentText: expected, updatedAt: input.now })
    .where(eq(profiles.id, userId))
  return input.now
}
