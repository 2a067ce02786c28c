import { MicIcon } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { CHAT_TEXT } from '#common/chat'
import { Button } from '#web/components/ui/button'
import { cn } from '#web/lib/utils'
import type { LocalMessage } from '#web/features/chat/chat-machine'
import type { LiveTranscripts } from '#web/features/chat/voice/transcripts'

type MessageListProps = {
  messages: LocalMessage[]
  /** The reply so far while it streams; null when none is streaming. */
  streamingText: string | null
  /** Waiting for the first words of a reply. */
  typing: boolean
  loading: boolean
  /** The conversation has messages older than those shown. */
  hasEarlier: boolean
  loadingEarlier: boolean
  onLoadEarlier: () => void
  /** How many of `messages` were loaded with 'Load earlier messages' (they come first). */
  earlierCount: number
  /** A voice call's partial transcripts, one live line per speaker. */
  live?: LiveTranscripts
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' })

type BubbleProps = {
  sender: 'user' | 'ai'
  text: string
  timestamp?: string
  notice?: 'error' | 'info' | undefined
  /** A partial transcript, still being spoken. */
  partial?: boolean
  /** Said in a voice call: a mic icon beside its time, and 'Spoken' for screen readers. */
  spoken?: boolean | undefined
  as?: 'li' | 'div'
}

function Bubble({ sender, text, timestamp, notice, partial, spoken, as: Tag = 'li' }: BubbleProps) {
  const mine = sender === 'user'
  return (
    <Tag className={cn('flex', mine ? 'justify-end' : 'justify-start')}>
      <div
        className={cn(
          'max-w-[85%] rounded-2xl px-4 py-2.5 text-sm whitespace-pre-wrap break-words shadow-xs sm:max-w-[75%]',
          mine ? 'rounded-br-sm bg-primary text-primary-foreground' : 'rounded-bl-sm border bg-card text-card-foreground',
          notice === 'error' && 'border-destructive/40 bg-destructive/5 text-foreground',
          notice === 'info' && 'border-dashed bg-muted text-muted-foreground',
          partial && 'italic opacity-80',
        )}
      >
        <p>
          <span className="sr-only">{mine ? 'You said: ' : 'Coach said: '}</span>
          {text}
        </p>
        {timestamp ? (
          <span className={cn('mt-1 flex items-center justify-end gap-1 text-[0.7rem]', mine ? 'text-primary-foreground/80' : 'text-muted-foreground')}>
            {spoken ? (
              <>
                <MicIcon className="size-3" aria-hidden="true" data-spoken="" />
                <span className="sr-only">{CHAT_TEXT.spoken}, </span>
              </>
            ) : null}
            <time dateTime={timestamp}>{timeFormat.format(new Date(timestamp))}</time>
          </span>
        ) : null}
      </div>
    </Tag>
  )
}

/** The typing indicator, shown while waiting for a reply. */
function TypingIndicator() {
  return (
    <li className="flex justify-start">
      <div role="status" aria-label="Coach is typing" className="flex items-center gap-1 rounded-2xl rounded-bl-sm border bg-card px-4 py-3">
        {[0, 150, 300].map((delay) => (
          <span key={delay} className="size-2 animate-bounce rounded-full bg-muted-foreground" style={{ animationDelay: `${delay}ms` }} aria-hidden="true" />
        ))}
      </div>
    </li>
  )
}

/**
 * The conversation: the user's messages on the right, the coach's on the left, newest at the bottom.
 * A long conversation opens on its newest messages; 'Load earlier messages' above them adds the
 * page before. Earlier messages go in a list of their own, outside the live log, so loading them
 * is not read out as new messages.
 */
export function MessageList({ messages, streamingText, typing, loading, hasEarlier, loadingEarlier, onLoadEarlier, earlierCount, live }: MessageListProps) {
  const end = useRef<HTMLDivElement>(null)
  const liveUser = live?.user ?? null
  const liveAssistant = live?.assistant ?? null
  const earlierList = useRef<HTMLOListElement>(null)
  /** The button was used: when the last page has come and the button is gone, focus moves to what it loaded. */
  const loadRequested = useRef(false)
  const lastId = messages.at(-1)?.id
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [lastId, streamingText, typing, liveUser, liveAssistant])
  useEffect(() => {
    if (!loadRequested.current || loadingEarlier) return
    loadRequested.current = false
    if (!hasEarlier) earlierList.current?.focus()
  }, [hasEarlier, loadingEarlier])

  if (loading) {
    return <p className="m-auto text-sm text-muted-foreground">Loading conversation...</p>
  }
  if (messages.length === 0 && !typing && streamingText === null && liveUser === null && liveAssistant === null) {
    return (
      <div className="m-auto max-w-md px-4 text-center">
        <p className="text-lg font-medium">Your coach is ready when you are.</p>
        <p className="mt-2 text-sm text-muted-foreground">
          Ask about your goals, plan your day, or talk through what is getting in your way. Your conversations are saved in the history.
        </p>
      </div>
    )
  }
  const earlier = messages.slice(0, earlierCount)
  const recent = messages.slice(earlierCount)
  const bubble = (message: LocalMessage) => (
    <Bubble
      key={message.id}
      sender={message.sender}
      text={message.text}
      timestamp={message.timestamp}
      notice={message.ephemeral ? (message.info ? 'info' : 'error') : undefined}
      spoken={message.spoken}
    />
  )
  return (
    <div className="mx-auto w-full max-w-3xl px-4 py-6">
      {hasEarlier ? (
        <div className="mb-4 flex justify-center">
          <Button
            variant="outline"
            size="sm"
            aria-disabled={loadingEarlier}
            onClick={() => {
              if (loadingEarlier) return
              loadRequested.current = true
              onLoadEarlier()
            }}
          >
            {loadingEarlier ? CHAT_TEXT.loadingEarlier : CHAT_TEXT.loadEarlier}
          </Button>
        </div>
      ) : null}
      {earlier.length > 0 ? (
        <ol ref={earlierList} tabIndex={-1} aria-label="Earlier messages" className="mb-3 flex flex-col gap-3 outline-none">
          {earlier.map(bubble)}
        </ol>
      ) : null}
      <div role="log" aria-label="Messages" aria-live="polite" aria-busy={streamingText !== null}>
        <ol className="flex flex-col gap-3">
          {recent.map(bubble)}
          {streamingText ? <Bubble sender="ai" text={streamingText} /> : null}
          {typing && !streamingText ? <TypingIndicator /> : null}
        </ol>
      </div>
      {/* Partial transcripts change word by word: shown, kept out of the live log (the final line is announced there). */}
      {liveUser !== null || liveAssistant !== null ? (
        <div role="group" aria-label="Live transcript" className="mt-3 flex flex-col gap-3">
          {liveAssistant !== null ? <Bubble as="div" sender="ai" text={liveAssistant} partial /> : null}
          {liveUser !== null ? <Bubble as="div" sender="user" text={liveUser} partial /> : null}
        </div>
      ) : null}
      <div ref={end} aria-hidden="true" className="h-px" />
    </div>
  )
}
