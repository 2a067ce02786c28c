/**
 * Toasts in the shape the spec writes them: a title and a description, e.g.
 *   toast({ title: 'Login failed', description: 'Invalid email or password', variant: 'destructive' })
 *
 * sonner is imported on demand (the <Toaster> in the root route loads it after the first paint),
 * so no route pays for it up front. A toast shown before the Toaster mounts is replayed by sonner.
 */
export type ToastInput = {
  title: string
  description?: string
  /** `destructive` renders an error toast in the destructive colours. */
  variant?: 'default' | 'destructive'
  /** Milliseconds before it closes by itself; sonner's default when omitted. */
  duration?: number
  /** A button in the toast (e.g. 'Contact support' after an error). */
  action?: { label: string; onClick: () => void }
}

type ToastId = string | number

const loadSonner = () => import('sonner')

/** Shows a toast; resolves to its id (for dismissToast). */
export async function toast({ title, description, variant = 'default', duration, action }: ToastInput): Promise<ToastId> {
  const { toast: sonnerToast } = await loadSonner()
  const options = {
    ...(description === undefined ? {} : { description }),
    ...(duration === undefined ? {} : { duration }),
    ...(action === undefined ? {} : { action: { label: action.label, onClick: action.onClick } }),
  }
  return variant === 'destructive' ? sonnerToast.error(title, options) : sonnerToast(title, options)
}

