/**
 * The dashboard's socket to the voice gateway (`/api/voice` on our own origin, signed in by the
 * session cookie): after the server's `hello` it sends `watch-calls` and hears the person's phone
 * calls live (the server sends the call live now first); "End call" sends `end-phone-call`. Every
 * text frame is checked against the protocol's schemas both ways. A socket that drops is opened
 * again with a growing delay (a sign-out closes it for good); it lives only while the dashboard
 * is shown.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useReducer, useRef } from 'react'
import { VOICE_PROTOCOL_VERSION, VoiceClientMessageSchema, type VoiceClientMessage } from '#common/voice'
import { initialLiveCallState, liveCallReducer, type LiveCall } from './live-call-state'
import { liveSocketUrl, parseServerFrame, reconnectDelayMs } from './live-socket'

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
  const socketRef = useRef<WebSocket | null>(null)
  const queryClient = useQueryClient()

  useEffect(() => {
    if (!enabled) return
    let stopped = false
    let attempt = 0
    let timer: number | undefined

    const send = (socket: WebSocket, message: VoiceClientMessage) => socket.send(JSON.stringify(VoiceClientMessageSchema.parse(message)))

    const open = () => {
      if (stopped) return
      let socket: WebSocket
      try {
        socket = new WebSocket(liveSocketUrl(window.location))
      } catch {
        retry()
        return
      }
      socketRef.current = socket
      socket.onmessage = (event: MessageEvent) => {
        const message = parseServerFrame(event.data)
        if (!message || stopped) return
        if (message.type === 'hello') {
          if (message.v !== VOICE_PROTOCOL_VERSION) return
          attempt = 0
          send(socket, { type: 'watch-calls' })
          return
        }
        dispatch({ type: 'message', message })
        // A call that ended changes the dashboard's numbers and its recent calls.
        if (message.type === 'phone-call' && message.status === 'ended') {
          void queryClient.invalidateQueries({ queryKey: ['calls'] })
          void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
        }
      }
      socket.onclose = (event: CloseEvent) => {
        if (socketRef.current === socket) socketRef.current = null
        if (stopped) return
        // Signed out (here or elsewhere): the session is gone, so is the watch.
        if (event.code === 1000 && event.reason === 'signed-out') return
        retry()
      }
    }

    const retry = () => {
      if (stopped) return
      timer = window.setTimeout(open, reconnectDelayMs(attempt))
      attempt += 1
    }

    open()
    return () => {
      stopped = true
      window.clearTimeout(timer)
      const socket = socketRef.current
      socketRef.current = null
      if (socket && (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN)) socket.close(1000)
    }
  }, [enabled, queryClient])

  const callId = state.call?.callId
  const endCall = useCallback(() => {
    if (!callId) return
    const socket = socketRef.current
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      dispatch({ type: 'end-failed', message: 'Not connected right now. Please try again in a moment.' })
      return
    }
    dispatch({ type: 'ending', callId })
    socket.send(JSON.stringify(VoiceClientMessageSchema.parse({ type: 'end-phone-call', callId })))
  }, [callId])
  const dismiss = useCallback(() => dispatch({ type: 'dismiss' }), [])

  return { call: state.call, endCall, dismiss }
}
