import type { RefObject } from 'react'
import { Button } from '#web/components/ui/button'
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '#web/components/ui/dialog'
import { ForgotPasswordForm } from './forgot-password-form'

export type ForgotPasswordDialogProps = {
  open: boolean
  onOpenChange: (open: boolean) => void
  defaultEmail: string
  /** Focus goes back here when the dialog closes (the 'Forgot Password?' button). */
  returnFocusRef: RefObject<HTMLButtonElement | null>
}

/** The reset request opened by 'Forgot Password?' (loaded on demand: not needed for first paint). */
export default function ForgotPasswordDialog({ open, onOpenChange, defaultEmail, returnFocusRef }: ForgotPasswordDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        onCloseAutoFocus={(event) => {
          event.preventDefault()
          returnFocusRef.current?.focus()
        }}
      >
        <DialogHeader>
          <DialogTitle>Reset your password</DialogTitle>
          <DialogDescription>
            Enter the email address of your account and we'll send you a link to choose a new password.
          </DialogDescription>
        </DialogHeader>
        <ForgotPasswordForm
          idPrefix="forgot"
          defaultEmail={defaultEmail}
          afterSent={
            <DialogClose asChild>
              <Button variant="outline">Done</Button>
            </DialogClose>
          }
        />
      </DialogContent>
    </Dialog>
  )
}
