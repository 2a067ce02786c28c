import { eq } from 'drizzle-orm'
import { stoppedMessage } from '#common/account'
import { displayPhoneNumber, optInConsentText } from '#common/opt-in'
import type { Db, DbExecutor } from '#server/db/client'
import { profiles, users } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { recordConsent, type ConsentRequestMeta } from '#server/services/consent'
import { isStopped } from '#server/services/phones'

type OptInState = { optedInAt: Date | null }

export async function getOptIn(db: DbExecutor, userId: string): Promise<OptInState> {
  const [row] = await db.select({ optedInAt: profiles.smsOptedInAt }).from(profiles).where(eq(profiles.id, userId)).limit(1)
  return { optedInAt: row?.optedInAt ?? null }
}

/**
 * Records the text opt-in (the person is trusted to have sent START): the time, and the exact
 * consent text the screen showed. The screen sends back the text it showed; it must be the current
 * text for the configured number, so the record never holds words nobody was shown. Confirming
 * again records the latest consent. The profile's opt-in columns say the person went through the
 * screen; the consent ledger's row (texts granted, with the request's IP and user agent) is what
 * lets texts go out. A number that texted STOP is refused (only a START from it lifts that).
 * (Opt-in needs completed payment: the route's guard decides.)
 */
export async function recordOptIn(
  db: Db,
  userId: string,
  input: { smsNumber: string; consentText: string; now: Date; meta: ConsentRequestMeta },
): Promise<Date> {
  const expected = optInConsentText(input.smsNumber)
  if (input.consentText.trim() !== expected) throw new AppError('CONSENT_TEXT_CHANGED', undefined, { field: 'consentText' })
  await db.transaction(async (tx) => {
    // A STOP belongs to the phone (docs/decisions/060): this screen cannot lift it, and says why,
    // rather than record a consent that could not take effect.
    const [person] = await tx.select({ phoneNumber: users.phoneNumber }).from(users).where(eq(users.id, userId)).limit(1)
    if (person && (await isStopped(tx, person.phoneNumber))) {
      throw new AppError('NUMBER_STOPPED', stoppedMessage(displayPhoneNumber(input.smsNumber)), { field: 'consentText' })
    }
    await tx
      .update(profiles)
      .set({ smsOptedInAt: input.now, smsOptInConsentText: expected, updatedAt: input.now })
      .where(eq(profiles.id, userId))
    await recordConsent(tx, {
      userId,
      channel: 'texts',
      action: 'granted',
      source: 'opt_in_screen',
      text: expected,
      at: input.now,
      ip: input.meta.ip,
      userAgent: input.meta.userAgent,
    })
  })
  return input.now
}
