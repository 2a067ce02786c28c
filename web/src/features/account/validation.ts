/** The account forms' validation: the shared schemas, as the server applies them (loaded with the forms' first submit). */
import { ChangeEmailBodySchema, ChangePasswordBodySchema, ChangePhoneBodySchema, ConfirmPhoneBodySchema, UpdateProfileBodySchema } from '#common/account'
import { validatorFor } from '#web/features/auth/validation'

export const validateProfile = validatorFor(UpdateProfileBodySchema)
export const validateEmailChange = validatorFor(ChangeEmailBodySchema)
export const validatePhoneChange = validatorFor(ChangePhoneBodySchema)
export const validatePhoneCode = validatorFor(ConfirmPhoneBodySchema)
export const validatePasswordChange = validatorFor(ChangePasswordBodySchema)
