/**
 * The 10 recovery codes of two-factor sign-in, shown once (docs/decisions/072): the list, and ways
 * to keep them (copy, download as a text file).
 */
import { CopyIcon, DownloadIcon } from 'lucide-react'
import { useId } from 'react'
import { Button } from '#web/components/ui/button'
import { toast } from '#web/lib/toast'

const asText = (codes: readonly string[]) =>
  ['Momentum Coach recovery codes', 'Each code signs you in once, when you cannot use your authenticator app.', '', ...codes, ''].join('\n')

export function RecoveryCodesList({ codes }: { codes: readonly string[] }) {
  const labelId = useId()
  async function copy() {
    try {
      await navigator.clipboard.writeText(asText(codes))
      void toast({ title: 'Copied', description: 'Your recovery codes are on the clipboard. Paste them somewhere safe.' })
    } catch {
      void toast({ title: 'Not copied', description: 'Your browser did not allow copying. Select the codes and copy them, or download them.', variant: 'destructive' })
    }
  }
  function download() {
    const url = URL.createObjectURL(new Blob([asText(codes)], { type: 'text/plain' }))
    const link = document.createElement('a')
    link.href = url
    link.download = 'momentum-coach-recovery-codes.txt'
    link.click()
    URL.revokeObjectURL(url)
  }
  return (
    <div className="grid gap-4">
      <p id={labelId} className="font-medium">
        Your recovery codes
      </p>
      <ol aria-labelledby={labelId} className="grid grid-cols-2 gap-x-6 gap-y-2 rounded-md border bg-muted/40 p-4 font-mono text-base sm:max-w-md" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="outline" onClick={() => void copy()}>
          <CopyIcon aria-hidden="true" />
          Copy codes
        </Button>
        <Button type="button" variant="outline" onClick={download}>
          <DownloadIcon aria-hidden="true" />
          Download codes
        </Button>
      </div>
    </div>
  )
}
