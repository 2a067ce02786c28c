/**
 * The consent ledger's vocabulary (issue 15): which channel, granted or revoked, and where the
 * decision came from. Shared by the server (ledger rows, check constraints) and the web (the
 * consent history a person can read).
 */
export const CONSENT_CHANNELS = ['calls', 'texts', 'report_emails'] as const
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number]

export const CONSENT_ACTIONS = ['granted', 'revoked'] as const
export type ConsentAction = (typeof CONSENT_ACTIONS)[number]

/**
 * sign_up: the sign-up form's consent checkbox; opt_in_screen: /opt-in's button, or a START text
 * while the person went through it; settings: a switch in the app; inbound_text: a keyword texted
 * to our number; email_unsubscribe: a report email's one-click unsubscribe; carrier_opt_out: Twilio
 * refused a text because the person opted out with the carrier (error 21610) while we did not know.
 */
export const CONSENT_SOURCES = ['sign_up', 'opt_in_screen', 'settings', 'inbound_text', 'email_unsubscribe', 'carrier_opt_out'] as const
export type ConsentSource = (typeof CONSENT_SOURCES)[number]

/**
 * With no ledger row at all, calls and texts are off (they need an explicit grant) and report
 * emails are on (they are part of the service; every one carries an unsubscribe that is recorded).
 */
export const CONSENT_DEFAULTS: Record<ConsentChannel, boolean> = { calls: false, texts: false, report_emails: true }

/** What the ledger records for the schedule page's calls switch (its label and the state chosen). */
export const callsSwitchConsentText = (enabled: boolean) => `Daily coaching calls: ${enabled ? 'On' : 'Off'}`
