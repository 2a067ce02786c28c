import { MicIcon, PhoneOffIcon, SendHorizontalIcon } from 'lucide-react'
import { useRef, useState, useSyncExternalStore, type FormEvent, type KeyboardEvent, type ReactNode } from 'react'
import { CHAT_TEXT, USER_MESSAGE_MAX } from '#common/chat'
import { Button } from '#web/components/ui/button'
import { Textarea } from '#web/components/ui/textarea'
import { cn } from '#web/lib/utils'
import type { MeterStore } from '#web/features/chat/voice/meter-store'
import type { VoiceFlags } from '#web/features/chat/voice/use-voice-call'

type ChatInputProps = {
  processing: boolean
  /** Sends the text; resolves true when it was taken (the box then empties). */
  onSend: (text: string) => Promise<boolean>
  onVoice: () => void
  voice: VoiceFlags & { meters: MeterStore }
}

/**
 * The voice button inside its level ring, and the microphone's level meter beside it while
 * listening. Subscribed to the meters alone, so the volume (ten times a second) re-renders only
 * this. The playback worklet's counters of the assistant's audio (received, played, flushed,
 * dropped, queued, in ms) are exposed on it for the browser test (`data-voice-*-ms`).
 */
function VoiceControl({ voice, children }: { voice: ChatInputProps['voice']; children: ReactNode }) {
  const { volume, receivedMs, playedMs, flushedMs, droppedMs, bufferedMs } = useSyncExternalStore(voice.meters.subscribe, voice.meters.get)
  const level = Math.round(volume * 100)
  return (
    <>
      <div
        className="relative shrink-0"
        data-voice-received-ms={receivedMs}
        data-voice-played-ms={playedMs}
        data-voice-flushed-ms={flushedMs}
        data-voice-dropped-ms={droppedMs}
        data-voice-buffered-ms={bufferedMs}
      >
        {voice.listening ? (
          // The level, drawn as a ring that grows with the voice; the meter beside says it in numbers.
          <span
            aria-hidden="true"
            className="pointer-events-none absolute inset-0 rounded-md bg-destructive/30 transition-transform duration-100"
            style={{ transform: `scale(${1 + volume * 0.35})` }}
          />
        ) : null}
        {children}
      </div>
      {voice.listening ? (
        <div
          role="meter"
          aria-label="Microphone level"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={level}
          aria-valuetext={voice.userSpeaking ? `${level}%, speaking` : `${level}%, quiet`}
          className="flex h-10 w-1.5 shrink-0 flex-col justify-end overflow-hidden rounded-full bg-muted"
        >
          <span className="block w-full rounded-full bg-destructive transition-[height] duration-100" style={{ height: `${level}%` }} />
        </div>
      ) : null}
    </>
  )
}

/** What the call is doing, in words (a status line while a call is going; it changes only with the phase). */
function callStatus(voice: VoiceFlags): string | null {
  if (voice.phase === 'starting') return 'Starting voice call...'
  if (voice.phase === 'ending') return 'Ending voice call...'
  return voice.phase === 'listening' ? 'Voice call active' : null
}

/**
 * The input bar: the voice button, the text box ('Type a message...', or 'Voice active - you can
 * still type here...' during a call; Enter sends, Shift+Enter makes a new line) and the send
 * button, disabled while the text is empty or a reply is being processed. The voice button reads
 * 'Start voice call' or 'End call', is disabled while processing, and during a call carries the
 * microphone's level meter.
 */
export function ChatInput({ processing, onSend, onVoice, voice }: ChatInputProps) {
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

  const inCall = voice.phase === 'listening' || voice.phase === 'ending'
  const voiceLabel = inCall ? CHAT_TEXT.endVoiceCall : CHAT_TEXT.startVoiceCall
  const status = callStatus(voice)

  return (
    <form
      onSubmit={onSubmit}
      className="border-t bg-card px-3 py-3 sm:px-4"
      data-voice-phase={voice.phase}
      data-voice-playing={voice.playing}
    >
      <div className={cn('mx-auto mb-2 flex max-w-3xl gap-1 text-xs text-muted-foreground', !status && 'sr-only')}>
        <p role="status">{status}</p>
        {/* Seen, not announced: it changes with every breath. */}
        {voice.listening && voice.speaking ? <p aria-hidden="true">· your coach is speaking</p> : null}
      </div>
      <div className="mx-auto flex max-w-3xl items-end gap-2">
        <VoiceControl voice={voice}>
          <Button
            type="button"
            variant={inCall ? 'destructive' : 'outline'}
            size="icon"
            className="relative"
            title={voiceLabel}
            aria-label={voiceLabel}
            onClick={onVoice}
            disabled={processing || voice.processing}
            aria-busy={voice.processing}
          >
            {inCall ? <PhoneOffIcon aria-hidden="true" /> : <MicIcon aria-hidden="true" />}
          </Button>
        </VoiceControl>
        <Textarea
          ref={box}
          aria-label="Message"
          placeholder={voice.listening ? CHAT_TEXT.inputPlaceholderListening : CHAT_TEXT.inputPlaceholder}
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
