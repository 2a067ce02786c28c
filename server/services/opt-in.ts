import { eq } from 'drizzle-orm'
import { optInConsentText } from '#common/opt-in'
import type { Db } from '../db/client'
import { profiles } from '../db/schema'
import { AppError } from '../lib/app-error'
import { assertPaid } from './access'

export type OptInState = { optedInAt: Date | null }

export async function getOptIn(db: Db, userId: string): Promise<OptInState> {
  const [row] = await db.select({ optedInAt: profiles.smsOptedInAt }).from(profiles).where(eq(profiles.id, userId)).limit(1)
  return { optedInAt: row?.optedInAt ?? null }
}

/**
 * Records the text opt-in of spec 1 §4 (the person is trusted to have sent START): the time, and
 * the exact consent text the screen showed. The screen sends back the text it showed; it must be
 * the current text for the configured number, so the record never holds words nobody was shown.
 * Opt-in needs completed payment (spec 1 §5). Confirming again records the latest consent.
 */
export async function recordOptIn(db: Db, userId: string, input: { smsNumber: string; consentText: string; now: Date }): Promise<Date> {
  await assertPaid(db, userId, input.now)
  const expected = optInConsentText(input.smsNumber)
  if (input.consentText.trim() !== expected) {
    throw new AppError('CONSENT_TEXT_CHANGED', 'The opt-in instructions have changed. Please reload the page and read them again.', {
      status: 409,
      field: 'consentText',
    })
  }
  await db
    .update(profiles)
    .set({ smsOptedInAt: input.now, smsOptInConsentText: expected, updatedAt: input.now })
    .where(eq(profiles.id, userId))
  return input.now
}
