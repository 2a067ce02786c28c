/**
 * Listens, while /opt-in is open, for the START text from the person's own number: the server's
 * event stream (GET /api/opt-in/events) says `text-opt-in` when the inbound webhook took it.
 * `onListening` runs once the stream listens (the screen then reads the opt-in state again, to
 * catch a START that came in before).
 */
import { useEffect, useEffectEvent } from 'react'

export function useStartText(options: { enabled: boolean; onArrived: () => void; onListening: () => void }) {
  const arrived = useEffectEvent(options.onArrived)
  const listening = useEffectEvent(options.onListening)
  useEffect(() => {
    if (!options.enabled || typeof EventSource === 'undefined') return
    const source = new EventSource('/api/opt-in/events')
    source.addEventListener('ready', () => listening())
    source.addEventListener('text-opt-in', () => {
      source.close()
      arrived()
    })
    return () => source.close()
  }, [options.enabled])
}
