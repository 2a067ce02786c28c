/**
 * The account page's profile (issue 16): the name; the email, changed through a link sent to the
 * new address (the current one keeps working until then); the phone number, whether it is verified
 * (docs/decisions/060) and "Verify your number" while it is not, changed with the current password
 * and a code texted to the new number (calls and texts keep going to the current one until then).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { MailIcon, PhoneIcon, UserIcon } from 'lucide-react'
import { useId, type ComponentType, type ReactNode } from 'react'
import { EMAIL_CHANGE_TTL_HOURS, PHONE_CODE_DIGITS, PHONE_CODE_TTL_MINUTES, type AccountResponse } from '#common/account'
import { formatPhone, PHONE_INPUT_MAX } from '#common/auth-constants'
import { SectionCard } from '#web/components/section-card'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { authKeys } from '#web/features/auth/api'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { ResendConfirmationButton } from '#web/features/auth/components/resend-confirmation-button'
import {
  accountKeys,
  cancelEmailChange,
  cancelPhoneChange,
  confirmPhoneChange,
  requestEmailChange,
  requestPhoneChange,
  resendPhoneChangeCode,
  twoFactorQueryOptions,
  updateProfile,
} from './api'
import { FormActions, FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError, useDisclosure } from './form-support'
import { TWO_FACTOR_CODE_HINT, TWO_FACTOR_CODE_LABEL } from './two-factor-section'
import { VerifyNumber, whereTheCodeWent } from './verify-number'

const loadValidation = () => import('./validation')
const profileResolver = lazyResolver(() => loadValidation().then((module) => module.profileResolver))
const emailChangeResolver = lazyResolver(() => loadValidation().then((module) => module.emailChangeResolver))
const phoneChangeResolver = lazyResolver(() => loadValidation().then((module) => module.phoneChangeResolver))
const phoneCodeResolver = lazyResolver(() => loadValidation().then((module) => module.phoneCodeResolver))

/** A change of the profile went through: the page shows the server's answer, the navigation the name. */
function useSaved() {
  const queryClient = useQueryClient()
  return (saved: AccountResponse) => {
    queryClient.setQueryData(accountKeys.profile, saved)
    void queryClient.invalidateQueries({ queryKey: authKeys.me })
  }
}

export function ProfileSection({ account }: { account: AccountResponse }) {
  return (
    <SectionCard title="Profile" description="Your name, and where we reach you.">
      <div className="divide-y [&>*]:py-6 [&>*:first-child]:pt-0 [&>*:last-child]:pb-0">
        <NameSetting account={account} />
        <EmailSetting account={account} />
        <PhoneSetting account={account} />
      </div>
    </SectionCard>
  )
}

function Setting({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="space-y-3">
      <h3 id={id} className="flex items-center gap-2 text-base font-semibold">
        {icon}
        {title}
      </h3>
      {children}
    </section>
  )
}

type ChangeFormProps = { onDone: (answer: AccountResponse) => void; onCancel: () => void }

/** A button that opens a change form in its place; done or cancelled, the button is back, focused. */
function OnDemand({ label, form: Form, onSaved }: { label: string; form: ComponentType<ChangeFormProps>; onSaved: (answer: AccountResponse) => void }) {
  const { open, toggleMounted, show, close } = useDisclosure()
  if (open) {
    return (
      <Form
        onDone={(answer) => {
          onSaved(answer)
          close()
        }}
        onCancel={close}
      />
    )
  }
  return (
    <Button ref={toggleMounted} variant="outline" size="sm" onClick={show}>
      {label}
    </Button>
  )
}

function NameSetting({ account }: { account: AccountResponse }) {
  const saved = useSaved()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(profileResolver)
  const save = useMutation({
    mutationFn: updateProfile,
    onSuccess: (answer) => {
      saved(answer)
      void toast({ title: 'Name saved', description: `We'll call you ${answer.fullName}.` })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['fullName'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your name was not saved', error)
    },
  })
  return (
    <Setting icon={<UserIcon className="size-4" aria-hidden="true" />} title="Name">
      <form ref={formRef} noValidate onSubmit={onSubmit((body) => save.mutate(body))} className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <FormField
          name="fullName"
          id="account-full-name"
          label="Full Name"
          autoComplete="name"
          defaultValue={account.fullName}
          form={form}
          className="sm:w-80"
        />
        <Button type="submit" variant="outline" className="sm:mt-[1.375rem]" disabled={save.isPending}>
          <PendingLabel pending={save.isPending} idle="Save name" busy="Saving..." />
        </Button>
      </form>
    </Setting>
  )
}

function EmailSetting({ account }: { account: AccountResponse }) {
  const saved = useSaved()
  const cancel = useMutation({
    mutationFn: cancelEmailChange,
    onSuccess: (answer) => {
      saved(answer)
      void toast({ title: 'Email change cancelled', description: `Your email stays ${answer.email}.` })
    },
    onError: (error) => failureToast('The change was not cancelled', error),
  })
  const pending = account.pendingEmail
  return (
    <Setting icon={<MailIcon className="size-4" aria-hidden="true" />} title="Email">
      <div className="flex flex-wrap items-center gap-2">
        <p className="break-all" data-testid="account-email">
          {account.email}
        </p>
        <Badge variant={account.emailConfirmed ? 'secondary' : 'outline'}>{account.emailConfirmed ? 'Confirmed' : 'Not confirmed yet'}</Badge>
      </div>
      {!account.emailConfirmed ? <ResendConfirmationButton size="sm" /> : null}
      {pending ? (
        <div role="status" className="flex flex-col gap-3 rounded-lg border border-primary/30 bg-primary/5 p-4 sm:flex-row sm:items-center" data-testid="pending-email">
          <p className="flex-1 text-sm">
            We sent a confirmation link to <strong className="break-all">{pending.email}</strong>. Your email stays {account.email} until you
            follow it (it works for {EMAIL_CHANGE_TTL_HOURS} hours).
          </p>
          <Button size="sm" variant="outline" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            <PendingLabel pending={cancel.isPending} idle="Cancel email change" busy="Cancelling..." />
          </Button>
        </div>
      ) : null}
      <OnDemand label="Change email" form={EmailChangeForm} onSaved={saved} />
    </Setting>
  )
}

function EmailChangeForm({ onDone, onCancel }: ChangeFormProps) {
  const { form, formRef, onSubmit, showServerError } = useAccountForm(emailChangeResolver)
  // With two-factor sign-in on, its code too (docs/decisions/072).
  const twoFactorOn = useQuery(twoFactorQueryOptions()).data?.enabled === true
  const change = useMutation({
    mutationFn: requestEmailChange,
    onSuccess: (answer) => {
      onDone(answer)
      void toast({
        title: 'Check your new inbox',
        description: `We sent a confirmation link to ${answer.pendingEmail?.email ?? 'your new address'}. Your email stays ${answer.email} until you follow it.`,
      })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['newEmail', 'currentPassword', 'twoFactorCode'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your email was not changed', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => change.mutate(body))} className="grid gap-4 rounded-lg border p-4 sm:max-w-md">
      <FormField name="newEmail" id="account-new-email" label="New Email" type="email" autoComplete="email" autoFocus form={form} />
      <FormField
        name="currentPassword"
        id="account-email-password"
        label="Current Password"
        type="password"
        autoComplete="current-password"
        form={form}
        hint="We'll send a link to the new address. Your current email keeps working until you follow it."
      />
      {twoFactorOn ? (
        <FormField form={form} name="twoFactorCode" id="account-email-code" label={TWO_FACTOR_CODE_LABEL} autoComplete="one-time-code" hint={TWO_FACTOR_CODE_HINT} />
      ) : null}
      <FormActions pending={change.isPending} idle="Send confirmation link" busy="Sending..." onCancel={onCancel} />
    </form>
  )
}

function PhoneSetting({ account }: { account: AccountResponse }) {
  const saved = useSaved()
  const pending = account.pendingPhone
  return (
    <Setting icon={<PhoneIcon className="size-4" aria-hidden="true" />} title="Phone number">
      <div className="flex flex-wrap items-center gap-2">
        <p data-testid="account-phone">{formatPhone(account.phoneNumber)}</p>
        <Badge variant={account.phoneVerified && !account.phoneStopped ? 'secondary' : 'outline'} data-testid="account-phone-state">
          {phoneState(account)}
        </Badge>
      </div>
      <p className="text-sm text-muted-foreground">Your coaching calls and texts go to this number.</p>
      <VerifyNumber account={account} />
      {pending ? (
        <PhoneCodeForm account={account} pending={pending} onSaved={saved} />
      ) : (
        <OnDemand label="Change phone number" form={PhoneChangeForm} onSaved={saved} />
      )}
    </Setting>
  )
}

/** The number's badge: verified, waiting to be, or stopped by a STOP texted from it. */
const phoneState = (account: AccountResponse) => (account.phoneStopped ? 'Texted STOP' : account.phoneVerified ? 'Verified' : 'Not verified yet')

function PhoneChangeForm({ onDone, onCancel }: ChangeFormProps) {
  const { form, formRef, onSubmit, showServerError } = useAccountForm(phoneChangeResolver)
  const change = useMutation({
    mutationFn: requestPhoneChange,
    onSuccess: (answer) => {
      onDone(answer)
      void toast({ title: 'Code sent', description: answer.pendingPhone ? whereTheCodeWent(answer, answer.pendingPhone.phoneNumber) : undefined })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['phoneNumber', 'currentPassword'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your number was not changed', error)
    },
  })
  return (
    <form ref={formRef} noValidate onSubmit={onSubmit((body) => change.mutate(body))} className="grid gap-4 rounded-lg border p-4 sm:max-w-md">
      <FormField
        name="phoneNumber"
        id="account-new-phone"
        label="New Phone Number"
        type="tel"
        inputMode="tel"
        autoComplete="tel-national"
        placeholder="(123) 456-7890"
        maxLength={PHONE_INPUT_MAX}
        format={formatPhone}
        autoFocus
        form={form}
        hint="A US or Canadian number. We'll text a code to it; calls and texts keep going to your current number until you enter it."
      />
      <FormField
        name="currentPassword"
        id="account-phone-password"
        label="Current Password"
        type="password"
        autoComplete="current-password"
        form={form}
        hint="We'll also email you that your number changed."
      />
      <FormActions pending={change.isPending} idle="Text me a code" busy="Sending..." onCancel={onCancel} />
    </form>
  )
}

function PhoneCodeForm({
  account,
  pending,
  onSaved,
}: {
  account: AccountResponse
  pending: NonNullable<AccountResponse['pendingPhone']>
  onSaved: (answer: AccountResponse) => void
}) {
  const { form, formRef, onSubmit, showServerError } = useAccountForm(phoneCodeResolver)
  const confirm = useMutation({
    mutationFn: confirmPhoneChange,
    onSuccess: (answer) => {
      onSaved(answer)
      void toast({ title: 'Phone number updated', description: `Your calls and texts now go to ${formatPhone(answer.phoneNumber)}.` })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['code'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your number was not changed', error)
    },
  })
  const resend = useMutation({
    mutationFn: resendPhoneChangeCode,
    onSuccess: (answer) => {
      onSaved(answer)
      void toast({ title: 'New code sent', description: whereTheCodeWent(answer, pending.phoneNumber) })
    },
    onError: (error) => failureToast('No new code was sent', error),
  })
  const cancel = useMutation({
    mutationFn: cancelPhoneChange,
    onSuccess: (answer) => {
      onSaved(answer)
      void toast({ title: 'Phone change cancelled', description: `Calls and texts keep going to ${formatPhone(answer.phoneNumber)}.` })
    },
    onError: (error) => failureToast('The change was not cancelled', error),
  })
  return (
    <form
      ref={formRef}
      noValidate
      onSubmit={onSubmit((body) => confirm.mutate(body))}
      className="grid gap-4 rounded-lg border border-primary/30 bg-primary/5 p-4 sm:max-w-md"
      data-testid="pending-phone"
    >
      <p className="text-sm">{whereTheCodeWent(account, pending.phoneNumber)}</p>
      <FormField
        form={form}
        name="code"
        id="account-phone-code"
        label="Code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={PHONE_CODE_DIGITS + 2}
        className="w-40"
        hint={`Enter it within ${PHONE_CODE_TTL_MINUTES} minutes to make it your number.`}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={confirm.isPending}>
          <PendingLabel pending={confirm.isPending} idle="Confirm number" busy="Confirming..." />
        </Button>
        <Button type="button" variant="outline" onClick={() => resend.mutate()} disabled={resend.isPending}>
          <PendingLabel pending={resend.isPending} idle="Send a new code" busy="Sending..." />
        </Button>
        <Button type="button" variant="ghost" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
          Cancel change
        </Button>
      </div>
    </form>
  )
}
