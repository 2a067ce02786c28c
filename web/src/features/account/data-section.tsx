/**
 * The account page's "Your data" section (issue 16): "Export my data" downloads a ZIP of
 * everything the coach keeps about the person; "Delete my account" asks for the password and the
 * email typed again in a dialog, deletes the account, and signs out to the landing page.
 */
import { useQuery } from '@tanstack/react-query'
import { DownloadIcon, Trash2Icon } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '#web/components/ui/card'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from '#web/components/ui/dialog'
import { Field } from '#web/components/ui/field'
import { Input } from '#web/components/ui/input'
import { PasswordInput } from '#web/components/ui/password-input'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { meQueryOptions } from '#web/features/auth/api'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { useLogout } from '#web/features/auth/use-logout'
import { deleteMyAccount, exportMyData, saveFile } from './data-api'

export function AccountDataSection() {
  const titleId = useId()
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle as="h2" id={titleId}>
          Your data
        </CardTitle>
        <CardDescription>Take a copy of everything we keep about you, or close your account for good.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        <ExportData />
        <hr className="border-border" />
        <DeleteAccount />
      </CardContent>
    </Card>
  )
}

function ExportData() {
  const [pending, setPending] = useState(false)
  const describedBy = useId()

  async function exportData() {
    setPending(true)
    try {
      const name = saveFile(await exportMyData(), 'momentum-coach-data.zip')
      void toast({ title: 'Your data is downloading', description: `${name}: open README.md inside to see what each file holds.` })
    } catch (error) {
      const limited = isApiError(error) && error.status === 429
      void toast({
        title: limited ? 'Export not available yet' : "We couldn't export your data",
        description: isApiError(error) ? error.message : 'Please try again.',
        variant: 'destructive',
      })
    } finally {
      setPending(false)
    }
  }

  return (
    <div className="space-y-3">
      <h3 className="text-base font-semibold">Export my data</h3>
      <p id={describedBy} className="text-sm text-muted-foreground">
        One ZIP file: your account and profile, goals, calls with summaries, transcripts and timelines, commitments, conversations, what your coach remembers, courses and quiz answers, consent history, texts,
        weekly reports, billing and sign-ins, as JSON files with a README that explains each. You can export once every 10 minutes.
      </p>
      <Button variant="outline" onClick={() => void exportData()} disabled={pending} aria-describedby={describedBy}>
        {pending ? null : <DownloadIcon aria-hidden="true" />}
        <PendingLabel pending={pending} idle="Export my data" busy="Preparing your export..." />
      </Button>
    </div>
  )
}

type DeleteErrors = { password?: string; email?: string }

function DeleteAccount() {
  const email = useQuery({ ...meQueryOptions(), enabled: false }).data?.email ?? ''
  const [open, setOpen] = useState(false)
  const describedBy = useId()
  return (
    <div className="space-y-3">
      <h3 className="text-base font-semibold">Delete my account</h3>
      <p id={describedBy} className="text-sm text-muted-foreground">
        Deletes your account and everything in it, cancels your subscription at once, removes your saved card and signs you out everywhere. This cannot be undone: export your data first if you want
        a copy. We keep only the payment records billing law requires and, if you had the free trial, a one-way fingerprint of your email address, so that a new account
        with it starts without another trial.
      </p>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogTrigger asChild>
          <Button variant="destructive" aria-describedby={describedBy}>
            <Trash2Icon aria-hidden="true" />
            Delete my account
          </Button>
        </DialogTrigger>
        {/* Mounted while open: a new opening starts with empty fields. */}
        {open ? <DeleteAccountDialog email={email} /> : null}
      </Dialog>
    </div>
  )
}

function DeleteAccountDialog({ email }: { email: string }) {
  const ids = { password: useId(), email: useId() }
  const { logout } = useLogout()
  const [password, setPassword] = useState('')
  const [typedEmail, setTypedEmail] = useState('')
  const [errors, setErrors] = useState<DeleteErrors>({})
  const [pending, setPending] = useState(false)

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const found: DeleteErrors = {}
    if (!password) found.password = 'Enter your password'
    if (typedEmail.trim().toLowerCase() !== email.toLowerCase()) found.email = `Type your email exactly as shown: ${email}`
    setErrors(found)
    if (found.password || found.email) {
      document.getElementById(found.password ? ids.password : ids.email)?.focus()
      return
    }
    setPending(true)
    try {
      await deleteMyAccount({ password, email: typedEmail })
    } catch (error) {
      setPending(false)
      if (isApiError(error) && (error.field === 'password' || error.field === 'email')) {
        setErrors({ [error.field]: error.message })
        document.getElementById(ids[error.field])?.focus()
        return
      }
      void toast({ title: "We couldn't delete your account", description: isApiError(error) ? error.message : 'Please try again.', variant: 'destructive' })
      return
    }
    // The session ended with the account: forget it here and leave for the landing page.
    await logout({ to: '/' })
    void toast({ title: 'Your account has been deleted', description: `We sent a last email to ${email}. You are welcome back any time.` })
  }

  return (
    <DialogContent>
      <DialogHeader>
        <DialogTitle>Delete your account?</DialogTitle>
        <DialogDescription>
          Your profile, goals, calls and transcripts, conversations, course progress and settings are deleted for good, your subscription is cancelled at once and your saved card removed (nothing more is
          charged), and every device is signed out. Only the payment records that tax law requires are kept, without your name or email.
        </DialogDescription>
      </DialogHeader>
      <form noValidate onSubmit={(event) => void submit(event)} className="grid gap-4">
        <Field id={ids.password} label="Your password" error={errors.password}>
          {(control) => (
            <PasswordInput {...control} autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} />
          )}
        </Field>
        <Field id={ids.email} label={`Type your email (${email}) to confirm`} error={errors.email}>
          {(control) => (
            <Input {...control} type="email" autoComplete="off" spellCheck={false} value={typedEmail} onChange={(event) => setTypedEmail(event.target.value)} />
          )}
        </Field>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline" disabled={pending}>
              Cancel
            </Button>
          </DialogClose>
          <Button type="submit" variant="destructive" disabled={pending}>
            <PendingLabel pending={pending} idle="Delete my account" busy="Deleting your account..." />
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  )
}
