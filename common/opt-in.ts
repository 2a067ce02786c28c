import { z } from 'zod'
import { text } from './text'

/** The keywords of spec 1 §9: text START to opt in, STOP to opt out. */
export const OPT_IN_KEYWORD = 'START' as const
export const OPT_OUT_KEYWORD = 'STOP' as const

/** An E.164 number as people read it: +15555550123 → (555) 555-0123; other countries stay as given. */
export function displayPhoneNumber(e164: string): string {
  const us = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164)
  return us ? `(${us[1]}) ${us[2]}-${us[3]}` : e164
}

/**
 * The sentences /opt-in shows (spec 1 §2), in order. Their concatenation is the consent text the
 * server records with the opt-in, so the record says exactly what the person read.
 */
export function optInSentences(e164: string): { instruction: string; optOut: string; rates: string } {
  return {
    instruction: `Text ${OPT_IN_KEYWORD} to ${displayPhoneNumber(e164)} to receive coaching reminders and important updates from Momentum Coach by text message.`,
    optOut: `You can opt out at any time by texting ${OPT_OUT_KEYWORD} to the same number.`,
    rates: 'Standard message and data rates may apply.',
  }
}

export function optInConsentText(e164: string): string {
  const { instruction, optOut, rates } = optInSentences(e164)
  return `${instruction} ${optOut} ${rates}`
}

export const OptInStateResponseSchema = z.object({
  /** The number to text, in E.164, and as shown. */
  phone_number: text(),
  display_number: text(),
  keyword: z.literal(OPT_IN_KEYWORD),
  opt_out_keyword: z.literal(OPT_OUT_KEYWORD),
  /** The exact text the screen shows; send it back when confirming. */
  consent_text: text(),
  opted_in: z.boolean(),
  opted_in_at: text().nullable(),
})
export type OptInStateResponse = z.infer<typeof OptInStateResponseSchema>

export const OptInBodySchema = z.object({
  consentText: text({ error: 'consentText is required' }).min(1, 'consentText is required').max(2000, 'consentText is too long'),
})

export const OptInResponseSchema = z.object({
  opted_in: z.literal(true),
  opted_in_at: text(),
})
