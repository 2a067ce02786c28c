/**
 * "Verify your number" (docs/decisions/060): nothing is called or texted to a number until it is
 * proven the person's, by the 6-digit code we text to it or by a START texted from it. Offered
 * wherever something waits on it: the dashboard's next-call card, the call schedule and the account
 * page. A number that texted STOP gets no code: only a START from that phone brings it back, and
 * this says so.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { ShieldCheckIcon } from 'lucide-react'
import { useId } from 'react'
import { PHONE_CODE_DIGITS, PHONE_CODE_TTL_MINUTES, stoppedMessage, type AccountResponse } from '#common/account'
import { formatPhone } from '#common/auth-constants'
import { Button } from '#web/components/ui/button'
import { lazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { callsKeys } from '#web/features/calls/api'
import { consentKeys } from '#web/features/consent/api'
import { accountKeys, accountQueryOptions, confirmPhoneVerification, requestPhoneVerification } from './api'
import { FormField, useAccountForm } from './account-form'
import { failureToast, serverFieldError } from './form-support'

const loadValidation = () => import('./validation')
const phoneCodeResolver = lazyResolver(() => loadValidation().then((module) => module.phoneCodeResolver))

/** Where the code went: texted, or written to the server's log when texts are not set up on it. */
export function whereTheCodeWent(account: Pick<AccountResponse, 'textsLive'>, phoneNumber: string): string {
  return account.textsLive
    ? `We texted a ${PHONE_CODE_DIGITS}-digit code to ${formatPhone(phoneNumber)}.`
    : `Texts are not set up on this server, so the ${PHONE_CODE_DIGITS}-digit code for ${formatPhone(phoneNumber)} was written to the server's log.`
}

/** The account as the verification changed it: every screen that waits on the number learns it. */
function useVerificationSaved() {
  const queryClient = useQueryClient()
  return (answer: AccountResponse) => {
    queryClient.setQueryData(accountKeys.profile, answer)
    void queryClient.invalidateQueries({ queryKey: callsKeys.next })
    void queryClient.invalidateQueries({ queryKey: callsKeys.schedule })
    void queryClient.invalidateQueries({ queryKey: consentKeys.all })
  }
}

/**
 * The control for a number not proven yet (nothing when it is): "Verify your number", then the
 * code's field. For a number that texted STOP, the way back instead.
 */
export function VerifyNumber({ account }: { account: AccountResponse }) {
  if (account.phoneStopped) {
    return (
      <p className="text-sm" data-testid="phone-stopped">
        {stoppedMessage(account.smsDisplayNumber)}
      </p>
    )
  }
  if (account.phoneVerified) return null
  return account.pendingVerification ? <VerificationCodeForm account={account} /> : <AskForCode account={account} />
}

/** The same control where the page has no account loaded yet (the dashboard, the schedule). */
export function VerifyNumberFromAccount() {
  const query = useQuery(accountQueryOptions())
  if (!query.data) return null
  return <VerifyNumber account={query.data} />
}

function AskForCode({ account }: { account: AccountResponse }) {
  const saved = useVerificationSaved()
  const ask = useMutation({
    mutationFn: requestPhoneVerification,
    onSuccess: (answer) => {
      saved(answer)
      void toast({ title: 'Code sent', description: whereTheCodeWent(answer, answer.phoneNumber) })
    },
    onError: (error) => failureToast('No code was sent', error),
  })
  return (
    <div className="flex flex-col items-start gap-2" data-testid="verify-number">
      <p className="text-sm text-muted-foreground">
        We call and text {formatPhone(account.phoneNumber)} only once you prove it is yours: we text it a {PHONE_CODE_DIGITS}-digit code to enter here. A
        START texted from it proves it too.
      </p>
      <Button size="sm" onClick={() => ask.mutate()} disabled={ask.isPending}>
        <ShieldCheckIcon aria-hidden="true" />
        <PendingLabel pending={ask.isPending} idle="Verify your number" busy="Sending..." />
      </Button>
    </div>
  )
}

function VerificationCodeForm({ account }: { account: AccountResponse }) {
  const saved = useVerificationSaved()
  const codeId = useId()
  const { form, formRef, onSubmit, showServerError } = useAccountForm(phoneCodeResolver)
  const confirm = useMutation({
    mutationFn: confirmPhoneVerification,
    onSuccess: (answer) => {
      saved(answer)
      void toast({ title: 'Number verified', description: `Your coaching calls and texts can now reach ${formatPhone(answer.phoneNumber)}.` })
    },
    onError: (error) => {
      const named = serverFieldError(error, ['code'] as const)
      if (named) showServerError(named.field, named.message)
      failureToast('Your number was not verified', error)
    },
  })
  const resend = useMutation({
    mutationFn: requestPhoneVerification,
    onSuccess: (answer) => {
      saved(answer)
      void toast({ title: 'New code sent', description: whereTheCodeWent(answer, answer.phoneNumber) })
    },
    onError: (error) => failureToast('No new code was sent', error),
  })
  return (
    <form
      ref={formRef}
      noValidate
      onSubmit={onSubmit((body) => confirm.mutate(body))}
      aria-label="Verify your number"
      className="grid gap-4 rounded-lg border border-primary/30 bg-primary/5 p-4 sm:max-w-md"
      data-testid="verify-number"
    >
      <p className="text-sm">{whereTheCodeWent(account, account.phoneNumber)}</p>
      <FormField
        form={form}
        name="code"
        id={codeId}
        label="Verification Code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={PHONE_CODE_DIGITS + 2}
        className="w-40"
        hint={`Enter it within ${PHONE_CODE_TTL_MINUTES} minutes.`}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={confirm.isPending}>
          <PendingLabel pending={confirm.isPending} idle="Verify number" busy="Verifying..." />
        </Button>
        <Button type="button" variant="outline" onClick={() => resend.mutate()} disabled={resend.isPending}>
          <PendingLabel pending={resend.isPending} idle="Send a new code" busy="Sending..." />
        </Button>
      </div>
    </form>
  )
}
