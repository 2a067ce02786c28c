/** Consent: the append-only ledger of calls, texts and report emails, and its current state per channel. */
export {
  getConsentState,
  getConsentStates,
  hasConsent,
  listConsentHistory,
  recordConsent,
  type ChannelConsent,
  type ConsentChange,
  type ConsentRequestMeta,
  type ConsentSnapshot,
} from './ledger'
