import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Button, type ButtonProps } from '#web/components/ui/button'
import { isApiError } from '#web/lib/api-error'
import { toast } from '#web/lib/toast'
import { authKeys, loadAuthRequests } from '#web/features/auth/api'
import { failureMessage } from '#web/features/auth/messages'
import { PendingLabel } from './pending-label'

/** POST /api/auth/resend-confirmation for the signed-in user; toasts the server's answer. */
export function ResendConfirmationButton(props: Omit<ButtonProps, 'onClick' | 'children'>) {
  const queryClient = useQueryClient()
  const resend = useMutation({
    mutationFn: async () => (await loadAuthRequests()).resendConfirmation(),
    onSuccess: (message) => {
      void toast({ title: 'Confirmation email', description: message })
      // "Already confirmed" is an answer too: let the screen catch up.
      void queryClient.invalidateQueries({ queryKey: authKeys.me })
    },
    onError: (error) => {
      void toast({
        title: isApiError(error) && error.is('RATE_LIMITED') ? 'Please wait a moment' : 'Email not sent',
        description: failureMessage(error, 'We could not send the email. Please try again.'),
        variant: 'destructive',
      })
    },
  })
  return (
    <Button variant="outline" {...props} disabled={resend.isPending || props.disabled} onClick={() => resend.mutate()}>
      <PendingLabel pending={resend.isPending} idle="Resend confirmation email" busy="Sending..." />
    </Button>
  )
}
