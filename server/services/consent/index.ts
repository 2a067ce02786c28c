/** Consent: the append-only ledger of calls, texts and report emails, and its current state per channel. */
import { displayPhoneNumber } from '#common/opt-in'
import { consentSettingText, undeliverableReason, type ConsentResponse, type SETTABLE_CONSENT_CHANNELS } from '#common/consent'
import type { Db } from '#server/db/client'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { getConsentState, listConsentHistory, recordConsent, type ConsentRequestMeta } from './ledger'
import { undeliverableNumberOf } from './reachability'

export {
  getConsentState,
  getConsentStates,
  hasConsent,
  listConsentHistory,
  onConsentRevoked,
  recordConsent,
  type ConsentChange,
  type ConsentRequestMeta,
} from './ledger'

/** Rows of the ledger the consent page shows. */
const CONSENT_HISTORY_SHOWN = 50

export function createConsent(deps: { db: Db; clock: Clock; smsNumber: string }) {
  const { db, clock } = deps

  async function view(userId: string): Promise<ConsentResponse> {
    const [state, history, undeliverable] = await Promise.all([
      getConsentState(db, userId),
      listConsentHistory(db, userId, CONSENT_HISTORY_SHOWN),
      undeliverableNumberOf(db, userId),
    ])
    const channel = (name: keyof typeof state) => ({ granted: state[name].granted, at: state[name].at?.toISOString() ?? null })
    return {
      channels: { calls: channel('calls'), texts: channel('texts'), report_emails: channel('report_emails') },
      history: history.map((row) => ({ id: row.id, channel: row.channel, action: row.action, source: row.source, text: row.text, at: row.at.toISOString() })),
      texts_undeliverable: undeliverable && {
        display_number: displayPhoneNumber(undeliverable.number),
        error_code: undeliverable.errorCode,
        reason: undeliverableReason(undeliverable.errorCode),
        since: undeliverable.since.toISOString(),
      },
      sms_number: deps.smsNumber,
      display_number: displayPhoneNumber(deps.smsNumber),
    }
  }

  return {
    /** The person's channels and their ledger (GET /api/consent). */
    view,
    /**
     * Turns texts off, or report emails on or off, from the app (a ledger row with the request's IP
     * and user agent; the same state again writes nothing). Texts come back only by a START text:
     * after a STOP the carrier refuses our texts until the person sends one.
     */
    async set(userId: string, channel: (typeof SETTABLE_CONSENT_CHANNELS)[number], enabled: boolean, meta: ConsentRequestMeta): Promise<ConsentResponse> {
      if (channel === 'texts' && enabled) {
        throw new AppError('VALIDATION_FAILED', `To get texts again, text START to ${displayPhoneNumber(deps.smsNumber)}.`, { field: 'enabled' })
      }
      await db.transaction(async (tx) => {
        const state = await getConsentState(tx, userId)
        if (state[channel].granted === enabled) return
        await recordConsent(tx, {
          userId,
          channel,
          action: enabled ? 'granted' : 'revoked',
          source: 'settings',
          text: consentSettingText(channel, enabled),
          at: clock.now(),
          ip: meta.ip,
          userAgent: meta.userAgent,
        })
      })
      return view(userId)
    },
  }
}
