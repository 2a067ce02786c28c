import { MicIcon, SendHorizontalIcon } from 'lucide-react'
import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import { CHAT_TEXT, USER_MESSAGE_MAX } from '#common/chat'
import { Button } from '../../../components/ui/button'
import { Textarea } from '../../../components/ui/textarea'

export type ChatInputProps = {
  processing: boolean
  /** Sends the text; resolves true when it was taken (the box then empties). */
  onSend: (text: string) => Promise<boolean>
  onVoice: () => void
}

/**
 * The input bar: the voice button, the text box ('Type a message...'; Enter sends,
 * Shift+Enter makes a new line) and the send button, disabled while the text is empty or a reply
 * is being processed. The voice button is disabled while processing.
 */
export function ChatInput({ processing, onSend, onVoice }: ChatInputProps) {
  const [text, setText] = useState('')
  const box = useRef<HTMLTextAreaElement>(null)
  const empty = text.trim() === ''

  const submit = async () => {
    if (empty || processing) return
    const sent = text
    setText('')
    const taken = await onSend(sent)
    if (!taken) setText(sent)
    box.current?.focus()
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      void submit()
    }
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    void submit()
  }

  return (
    <form onSubmit={onSubmit} className="border-t bg-card px-3 py-3 sm:px-4">
      <div className="mx-auto flex max-w-3xl items-end gap-2">
        <Button
          type="button"
          variant="outline"
          size="icon"
          title={CHAT_TEXT.startVoiceCall}
          aria-label={CHAT_TEXT.startVoiceCall}
          onClick={onVoice}
          disabled={processing}
        >
          <MicIcon aria-hidden="true" />
        </Button>
        <Textarea
          ref={box}
          aria-label="Message"
          placeholder={CHAT_TEXT.inputPlaceholder}
          value={text}
          maxLength={USER_MESSAGE_MAX}
          rows={1}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          className="field-sizing-content max-h-40 min-h-10 resize-none"
        />
        <Button type="submit" size="icon" aria-label="Send message" disabled={empty || processing}>
          <SendHorizontalIcon aria-hidden="true" />
        </Button>
      </div>
    </form>
  )
}
