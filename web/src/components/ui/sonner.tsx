import type { CSSProperties } from 'react'
import { Toaster as Sonner, type ToasterProps } from 'sonner'

/** Sonner reads its colours from these variables; inline values override its light theme. */
const themeVariables = {
  '--normal-bg': 'var(--popover)',
  '--normal-text': 'var(--popover-foreground)',
  '--normal-border': 'var(--border)',
  '--error-bg': 'var(--destructive)',
  '--error-text': 'var(--destructive-foreground)',
  '--error-border': 'var(--destructive-hover)',
  '--success-bg': '#f0fdf4',
  '--success-text': '#166534',
  '--success-border': '#bbf7d0',
  '--border-radius': 'var(--radius)',
} as CSSProperties

/**
 * The app's toast region (sonner), mounted once in the root route. Error toasts
 * (`toast({ variant: 'destructive' })`) render in the destructive colours, so they read
 * visibly as errors; sonner announces them to screen readers.
 */
export function Toaster(props: ToasterProps) {
  return (
    <Sonner
      theme="light"
      position="top-right"
      // Below the sticky site header (h-16), so a toast never covers its buttons (e.g. Log Out),
      // below the testing-mode banner when there is one (billing/testing-mode-banner), and below a
      // page's own header bar when it has one (the chat sets --app-subheader-height).
      offset={{ top: 'calc(80px + var(--app-banner-height, 0px) + var(--app-subheader-height, 0px))', right: 24, bottom: 24, left: 24 }}
      mobileOffset={{ top: 'calc(72px + var(--app-banner-height, 0px) + var(--app-subheader-height, 0px))', right: 16, bottom: 16, left: 16 }}
      closeButton
      richColors
      style={themeVariables}
      toastOptions={{
        classNames: {
          toast: 'font-sans',
          title: 'text-sm font-semibold!',
          description: 'text-sm',
        },
      }}
      {...props}
    />
  )
}
