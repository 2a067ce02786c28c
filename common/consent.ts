/**
 * The consent ledger's vocabulary (issue 15): which channel, granted or revoked, and where the
 * decision came from. Shared by the server (ledger rows, check constraints) and the web (the
 * consent history a person can read).
 */
import { z } from 'zod'
import { text } from './text'

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

const ChannelStateSchema = z.object({ granted: z.boolean(), at: text().nullable() })

/** GET /api/consent: where each channel stands, and the ledger's rows, newest first. */
export const ConsentResponseSchema = z.object({
  channels: z.object({ calls: ChannelStateSchema, texts: ChannelStateSchema, report_emails: ChannelStateSchema }),
  history: z.array(
    z.object({
      id: z.number().int(),
      channel: z.enum(CONSENT_CHANNELS),
      action: z.enum(CONSENT_ACTIONS),
      source: z.enum(CONSENT_SOURCES),
      /** The exact words shown or sent. */
      text: text(),
      at: text(),
    }),
  ),
  /**
   * The person's number, when Twilio said texts cannot reach it (no text goes to it until the number
   * changes or a START comes from it): the number as shown, Twilio's error code, why in words, since when.
   */
  texts_undeliverable: z.object({ display_number: text(), error_code: z.number().int(), reason: text(), since: text() }).nullable(),
  /** The number texts come from (and START goes to), E.164 and as shown. */
  sms_number: text(),
  display_number: text(),
})
export type ConsentResponse = z.infer<typeof ConsentResponseSchema>

/** The channels the consent page changes (calls: the schedule page's switch). */
export const SETTABLE_CONSENT_CHANNELS = ['texts', 'report_emails'] as const
export const ConsentChannelParamsSchema = z.object({ channel: z.enum(SETTABLE_CONSENT_CHANNELS, { error: 'channel must be texts or report_emails' }) })
export const UpdateConsentBodySchema = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) })

/** What the ledger records for the consent page's controls. */
export const consentSettingText = (channel: (typeof SETTABLE_CONSENT_CHANNELS)[number], enabled: boolean) =>
  `${channel === 'texts' ? 'Coaching texts' : 'Weekly report emails'}: ${enabled ? 'On' : 'Off'}`

/** Why texts cannot reach a number, by Twilio's error code (UNDELIVERABLE_CODES on the server). */
const UNDELIVERABLE_REASONS: Record<number, string> = {
  21211: 'it is not a valid phone number',
  21614: 'it is not a mobile number',
  30004: 'texts to it are blocked',
  30005: 'its carrier does not know it',
  30006: 'it is a landline, or its carrier cannot take texts',
}
export const undeliverableReason = (code: number) => UNDELIVERABLE_REASONS[code] ?? 'its carrier refused our texts'
