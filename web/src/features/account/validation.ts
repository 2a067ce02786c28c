/** The account forms' resolvers: the shared schemas, as the server applies them (loaded with the forms' first submit). */
import { zodResolver } from '@hookform/resolvers/zod'
import { ChangeEmailBodySchema, ChangePasswordBodySchema, ChangePhoneBodySchema, ConfirmPhoneBodySchema, UpdateProfileBodySchema } from '#common/account'
import { RecoveryCodesBodySchema, TwoFactorDisableBodySchema, TwoFactorEnableBodySchema, TwoFactorSetupBodySchema } from '#common/two-factor'

export const profileResolver = zodResolver(UpdateProfileBodySchema)
export const emailChangeResolver = zodResolver(ChangeEmailBodySchema)
export const phoneChangeResolver = zodResolver(ChangePhoneBodySchema)
export const phoneCodeResolver = zodResolver(ConfirmPhoneBodySchema)
export const passwordChangeResolver = zodResolver(ChangePasswordBodySchema)
export const twoFactorSetupResolver = zodResolver(TwoFactorSetupBodySchema)
export const twoFactorEnableResolver = zodResolver(TwoFactorEnableBodySchema)
export const twoFactorDisableResolver = zodResolver(TwoFactorDisableBodySchema)
export const recoveryCodesResolver = zodResolver(RecoveryCodesBodySchema)
