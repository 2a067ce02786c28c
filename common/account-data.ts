/**
 * "Export my data" and "Delete my account" (issue 16, docs/decisions/051): the deletion's request,
 * as the server checks it and the account page sends it.
 */
import { z } from 'zod'
import { EMAIL_MAX, PASSWORD_MAX } from './auth-constants'
import { text } from './text'

/** The account page's "Delete my account": the current password, and the account's email typed to confirm. */
export const DeleteAccountBodySchema = z
  .object({
    password: text({ error: 'Enter your password' }).min(1, 'Enter your password').max(PASSWORD_MAX, 'The password is not correct.'),
    email: text({ error: 'Type your email to confirm' })
      .trim()
      .min(1, 'Type your email to confirm')
      .max(EMAIL_MAX, 'Type the email of your account exactly')
      .transform((email) => email.toLowerCase()),
  })
  .strict()
export type DeleteAccountBody = z.input<typeof DeleteAccountBodySchema>

/** The export's attachment is a ZIP; its name (`momentum-coach-data-2026-11-25.zip`) comes in Content-Disposition. */
export const EXPORT_CONTENT_TYPE = 'application/zip'
