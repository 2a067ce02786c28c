/**
 * A coach thread's messages and its message box (docs/decisions/079), the same on both sides: each
 * message with who wrote it and when, "Read" under the last one of yours the other side has read,
 * and a box of at most 4,000 characters. New messages arrive through the page's event stream.
 */
import { useId, useRef, useEffect, useState } from 'react'
import { COACH_MESSAGE_MAX, type CoachMessage } from '#common/coach'
import { Button } from '#web/components/ui/button'
import { Field } from '#web/components/ui/field'
import { Textarea } from '#web/components/ui/textarea'
import { formatDateTime } from '#web/lib/date-time'
import { cn } from '#web/lib/utils'

export function ThreadMessages({ messages, me, names }: { messages: CoachMessage[]; me: 'member' | 'coach'; names: { member: string; coach: string } }) {
  const end = useRef<HTMLLIElement>(null)
  useEffect(() => {
    // A block, not an expression: scrollIntoView returns a promise in newer browsers, and an
    // effect must return nothing but its cleanup.
    void end.current?.scrollIntoView?.({ block: 'nearest' })
  }, [messages.length])
  const lastReadOfMine = [...messages].reverse().find((message) => message.from === me && message.readAt !== null)?.id
  if (messages.length === 0) return <p className="text-muted-foreground">No messages yet.</p>
  return (
    <ol className="max-h-96 space-y-3 overflow-y-auto" aria-label="Messages" aria-live="polite">
      {messages.map((message) => (
        <li key={message.id} className={cn('max-w-[85%] rounded-lg p-3', message.from === me ? 'ml-auto bg-primary/10' : 'bg-muted')}>
          <p className="text-xs text-muted-foreground">
            {message.from === me ? 'You' : names[message.from]} · <time dateTime={message.at}>{formatDateTime(message.at)}</time>
          </p>
          <p className="whitespace-pre-wrap break-words">{message.body}</p>
          {message.id === lastReadOfMine ? <p className="mt-1 text-xs text-muted-foreground">Read</p> : null}
        </li>
      ))}
      <li ref={end} aria-hidden="true" />
    </ol>
  )
}

export function MessageBox({ label, onSend, pending, error }: { label: string; onSend: (body: string) => Promise<unknown>; pending: boolean; error: string | undefined }) {
  const id = useId()
  const [body, setBody] = useState('')
  return (
    <form
      noValidate
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault()
        void onSend(body).then(() => setBody(''), () => undefined)
      }}
    >
      <Field id={id} label={label} error={error} hint={`${(COACH_MESSAGE_MAX - body.length).toLocaleString('en-US')} characters left.`}>
        {(control) => <Textarea {...control} rows={3} maxLength={COACH_MESSAGE_MAX} value={body} onChange={(event) => setBody(event.target.value)} />}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? 'Sending…' : 'Send'}
      </Button>
    </form>
  )
}
