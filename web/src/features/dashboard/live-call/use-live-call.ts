/**
 * The dashboard's socket to the voice gateway (`/api/voice` on our own origin, signed in by the
 * session cookie; the chat's voice call uses the same client, lib/voice-socket.ts): after the
 * server's `hello` it sends `watch-calls` and hears the person's phone calls live (the server sends
 * the call live now first); "End call" sends `end-phone-call`. Every text frame is checked against
 * the protocol's schemas both ways. A socket that drops is opened
 * again with a growing delay (a sign-out closes it for good); it lives only while the dashboard
 * is shown.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useReducer, useRef } from 'react'
import { VoiceSocket } from '#web/lib/voice-socket'
import { initialLiveCallState, liveCallReducer, type LiveCall } from './live-call-state'
import { reconnectDelayMs } from './live-socket'

export type LiveCallHandle = {
  call: LiveCall | null
  /** Sends "End call" for the call on the card. */
  endCall(): void
  /** Closes the card of a call that ended. */
  dismiss(): void
}

/** Watches the person's phone calls while `enabled` (the dashboard is shown and calls are set up). */
export function useLiveCall(enabled: boolean): LiveCallHandle {
  const [state, dispatch] = useReducer(liveCallReducer, initialLiveCallState)
  const socketRef = useRef<VoiceSocket | null>(null)
  const queryClient = useQueryClient()

  useEffect(() => {
    if (!enabled) return
    const stop = new AbortController()
    let attempt = 0
    let timer: number | undefined

    const retry = () => {
      if (stop.signal.aborted) return
      timer = window.setTimeout(() => void open(), reconnectDelayMs(attempt))
      attempt += 1
    }

    const open = async () => {
      let socket: VoiceSocket | null = null
      try {
        socket = await VoiceSocket.connect(
          {
            onMessage: (message) => {
              dispatch({ type: 'message', message })
              // A call that ended changes the dashboard's numbers and its recent calls.
              if (message.type === 'phone-call' && message.status === 'ended') {
                void queryClient.invalidateQueries({ queryKey: ['calls'] })
                void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
              }
            },
            // The gateway sends audio only during a voice call, which this socket never starts.
            onAudio: () => {},
            onClose: ({ code, reason }) => {
              if (socketRef.current === socket) socketRef.current = null
              // Signed out (here or elsewhere): the session is gone, so is the watch.
              if (code === 1000 && reason === 'signed-out') return
              retry()
            },
          },
          { signal: stop.signal },
        )
      } catch {
        retry()
        return
      }
      attempt = 0
      socketRef.current = socket
      socket.send({ type: 'watch-calls' })
    }

    void open()
    return () => {
      stop.abort()
      window.clearTimeout(timer)
      socketRef.current?.close(1000)
      socketRef.current = null
    }
  }, [enabled, queryClient])

  const callId = state.call?.callId
  const endCall = useCallback(() => {
    if (!callId) return
    const socket = socketRef.current
    if (!socket?.isOpen) {
      dispatch({ type: 'end-failed', message: 'Not connected right now. Please try again in a moment.' })
      return
    }
    dispatch({ type: 'ending', callId })
    socket.send({ type: 'end-phone-call', callId })
  }, [callId])
  const dismiss = useCallback(() => dispatch({ type: 'dismiss' }), [])

  return { call: state.call, endCall, dismiss }
}
