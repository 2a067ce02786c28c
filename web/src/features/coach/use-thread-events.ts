/**
 * The coach thread's live events (docs/decisions/079): the server's event stream (the member's
 * GET /api/coach/messages/stream, or the coach's GET /api/staff/coach/messages/stream) says
 * `coach-message` for a new message and `coach-messages-read` when the other side read theirs.
 * `onListening` runs once the stream listens (the page then reads the thread again, to catch a
 * message that came in before), and again after each reconnection.
 */
import { useEffect, useEffectEvent } from 'react'
import { CoachThreadEventSchema, type CoachThreadEvent } from '#common/coach'

export function useThreadEvents(url: string, options: { enabled: boolean; onEvent: (event: CoachThreadEvent) => void; onListening: () => void }) {
  const onEvent = useEffectEvent(options.onEvent)
  const listening = useEffectEvent(options.onListening)
  useEffect(() => {
    if (!options.enabled || typeof EventSource === 'undefined') return
    const source = new EventSource(url)
    const read = (message: MessageEvent<string>) => {
      try {
        const parsed = CoachThreadEventSchema.safeParse(JSON.parse(message.data))
        if (parsed.success) onEvent(parsed.data)
      } catch {
        // Not an event of ours: ignored.
      }
    }
    source.addEventListener('ready', () => listening())
    source.addEventListener('coach-message', read)
    source.addEventListener('coach-messages-read', read)
    return () => source.close()
  }, [url, options.enabled])
}
