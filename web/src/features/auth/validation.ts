/**
 * Form validation with the shared schemas, so every message is exactly the spec's,
 * and the failure messages the login and sign-up forms toast. Loaded on demand
 * through `loadAuthValidation()` (api.ts): it brings zod, and neither is needed for the forms'
 * first paint. A submit waits for this module, so its messages are there whenever one fails.
 */
import type { z } from 'zod'
import { ForgotPasswordBodySchema, LoginBodySchema, ResetPasswordBodySchema, SignupBodySchema } from '#common/auth'
import type { FieldErrors, Validator } from './use-form'

export { fieldErrorOf, loginFailureMessage, signupFailureMessage } from './messages'

/** Wraps a schema as a form validator: the first message of each top-level field. */
export function validatorFor<S extends z.ZodType>(schema: S): Validator<z.output<S>> {
  return (values) => {
    const result = schema.safeParse(values)
    if (result.success) return { success: true, data: result.data }
    const errors: FieldErrors = {}
    for (const issue of result.error.issues) {
      const field = issue.path[0]
      if (typeof field === 'string' && errors[field] === undefined) errors[field] = issue.message
    }
    return { success: false, errors }
  }
}

export const validateLogin = validatorFor(LoginBodySchema)
export const validateSignup = validatorFor(SignupBodySchema)
export const validateForgotPassword = validatorFor(ForgotPasswordBodySchema)
export const validateResetPassword = validatorFor(ResetPasswordBodySchema)
