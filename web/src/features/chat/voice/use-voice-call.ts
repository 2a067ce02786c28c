import type { UseQueryResult } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { CHAT_ERRORS } from '#common/chat'
import { VOICE_FORCED_END_MS, type VoiceConfigResponse, type VoiceServerMessage } from '#common/voice'
import { toast } from '#web/lib/toast'
import { VoiceSocket } from '#web/lib/voice-socket'
import type { Chat } from '#web/features/chat/use-chat'
import { CallAudio, createAudioContext } from './audio'
import { IDLE_CALL, nextCall, VOICE_TEXT, type CallEvent, type CallState, type VoicePhase } from './call-machine'
import { LEVEL_OBSERVER_INTERVAL_MS, LevelObserver } from './levels'
import { MeterStore } from './meter-store'

export type { VoicePhase } from './call-machine'

/** How long the call may take to start listening after `start`. */
const START_TIMEOUT_MS = 20_000

export type VoiceFlags = {
  phase: VoicePhase
  /** The call is live: the microphone is heard. */
  listening: boolean
  /** The assistant is speaking (its audio level, spec 2 §9). */
  speaking: boolean
  /** The user is speaking (the microphone's level). */
  userSpeaking: boolean
  /** Starting or ending: the voice button waits. */
  processing: boolean
  /** Assistant audio is going to the speaker. */
  playing: boolean
}

const IDLE: VoiceFlags = { phase: 'idle', listening: false, speaking: false, userSpeaking: false, processing: false, playing: false }

/** What a call holds while it goes. */
type Session = {
  call: CallState
  context: AudioContext | null
  audio: CallAudio | null
  socket: VoiceSocket | null
  /** The assistant is talking, as the server says. */
  assistantTalking: boolean
  timers: number[]
  observer: number | null
}

/**
 * The voice call of the chat (spec 2 §4 "Voice call", §8 voice toasts and text replies): the
 * microphone into the gateway in 20 ms frames, the assistant's audio out of it, transcripts into the
 * chat, the mute toggle honoured, and every flag reset when the call ends however it ends. The
 * states and the texts are call-machine.ts's; this carries out its effects.
 */
export function useVoiceCall({ chat, muted, config }: { chat: Chat; muted: boolean; config: UseQueryResult<VoiceConfigResponse> }) {
  const [flags, setFlags] = useState<VoiceFlags>(IDLE)
  /** The volume and the audio played: read by the meter alone (zero again on end, with every flag). */
  const [meters] = useState(() => new MeterStore())
  const session = useRef<Session | null>(null)
  const mutedRef = useRef(muted)
  const chatRef = useRef(chat)
  const playingRef = useRef(false)
  useEffect(() => {
    chatRef.current = chat
    playingRef.current = flags.playing
  }, [chat, flags.playing])

  const update = useCallback((patch: Partial<VoiceFlags>) => {
    setFlags((current) => {
      const next = { ...current, ...patch }
      return (Object.keys(next) as (keyof VoiceFlags)[]).some((key) => next[key] !== current[key]) ? next : current
    })
  }, [])

  /** Releases everything the call holds and resets every flag. */
  const teardown = useCallback(() => {
    const current = session.current
    session.current = null
    if (current) {
      current.timers.forEach((timer) => window.clearTimeout(timer))
      if (current.observer !== null) window.clearInterval(current.observer)
      current.socket?.close(1000)
      current.audio?.close()
      if (!current.audio && current.context) void current.context.close().catch(() => undefined)
    }
    setFlags(IDLE)
    meters.reset()
  }, [meters])

  /** Feeds an event to the call's state machine and carries out what it says. */
  const dispatch = useCallback(
    (current: Session, first: CallEvent) => {
      function run(event: CallEvent): void {
        if (session.current !== current) return
        const { state, effects } = nextCall(current.call, event)
        current.call = state
        if (state.phase !== 'idle') {
          update({ phase: state.phase, listening: state.phase === 'listening' || state.phase === 'ending', processing: state.phase === 'starting' || state.phase === 'ending' })
        }
        for (const effect of effects) {
          switch (effect.type) {
            case 'toast':
              void toast({ title: effect.title, description: effect.description, variant: effect.destructive ? 'destructive' : 'default' })
              break
            case 'notice':
              chatRef.current.notice(effect.reply.text, effect.reply.tone)
              break
            case 'teardown':
              teardown()
              break
            case 'ended':
              void chatRef.current.endVoiceCall({ conversationId: effect.conversationId, reply: effect.reply })
              break
            case 'arm-forced-end':
              current.timers.push(window.setTimeout(() => run({ type: 'forced-end' }), VOICE_FORCED_END_MS))
              break
          }
        }
      }
      run(first)
    },
    [teardown, update],
  )

  const onServerMessage = useCallback(
    (current: Session, message: VoiceServerMessage) => {
      if (session.current !== current) return
      switch (message.type) {
        case 'status':
          if (message.status === 'listening') dispatch(current, { type: 'listening' })
          return
        case 'transcript':
          if (message.final) dispatch(current, { type: 'final-transcript' })
          chatRef.current.voiceTranscript(message)
          return
        case 'speech':
          if (message.role === 'assistant') current.assistantTalking = message.status === 'started'
          // The user talks over the assistant: what it was about to say is dropped at once.
          else if (message.status === 'started' && (current.assistantTalking || playingRef.current)) current.audio?.flush()
          return
        case 'interrupted':
          current.audio?.flush()
          return
        case 'ended':
          dispatch(current, { type: 'ended', reason: message.reason, conversationId: message.conversationId })
          return
        case 'error':
          dispatch(current, { type: 'server-error', code: message.code, message: message.message })
          return
        default:
          return
      }
    },
    [dispatch],
  )

  /** Starts a voice call (the mic button while idle). */
  const start = useCallback(async () => {
    if (session.current) return
    // The configuration first (spec 2 §8): not loaded or invalid, or voice not available.
    const configError = () => void toast({ title: CHAT_ERRORS.configErrorTitle, description: CHAT_ERRORS.configError, variant: 'destructive' })
    if (config.isError) return configError()
    const voiceConfig = config.data ?? (await config.refetch()).data
    if (!voiceConfig) return configError()
    if (!voiceConfig.available) {
      void toast({ title: CHAT_ERRORS.voiceUnavailableTitle, description: CHAT_ERRORS.voiceUnavailable })
      return
    }
    if (!voiceConfig.assistantId) return configError()
    if (session.current) return

    const current: Session = { call: IDLE_CALL, context: null, audio: null, socket: null, assistantTalking: false, timers: [], observer: null }
    session.current = current
    dispatch(current, { type: 'start' })
    const live = () => session.current === current
    try {
      // In the click's own turn, so the browser lets the call's audio play.
      current.context = createAudioContext()
    } catch (error) {
      console.error('Voice input could not start:', error)
      return dispatch(current, { type: 'microphone-failed' })
    }

    // The call goes on in the chat on screen (docs/decisions/084): what is unsaved here is saved,
    // and the call is written into this conversation.
    const begun = await chatRef.current.beginVoiceCall()
    if (!begun) {
      if (live()) teardown()
      return
    }
    if (!live()) return

    try {
      current.audio = await CallAudio.start(
        current.context,
        {
          onFrame: (frame) => {
            if (current.call.phase === 'listening' || current.call.phase === 'ending') current.socket?.sendAudio(frame)
          },
          onPlaybackStats: (stats) => {
            if (!live()) return
            update({ playing: stats.playing })
            const { receivedMs, playedMs, flushedMs, droppedMs, bufferedMs } = stats
            meters.set({ receivedMs, playedMs, flushedMs, droppedMs, bufferedMs })
          },
        },
        mutedRef.current,
      )
    } catch (error) {
      console.error('Voice input could not start:', error)
      return dispatch(current, { type: 'microphone-failed' })
    }
    if (!live()) return current.audio.close()

    try {
      current.socket = await VoiceSocket.connect({
        onMessage: (message) => onServerMessage(current, message),
        onAudio: (bytes) => {
          if (live() && !mutedRef.current) current.audio?.play(bytes)
        },
        onClose: () => dispatch(current, { type: 'socket-closed' }),
      })
    } catch (error) {
      console.error('The voice gateway could not be reached:', error)
      return dispatch(current, { type: 'connect-failed' })
    }
    if (!live()) return current.socket.close()
    current.socket.start(begun.conversationId)
    if (mutedRef.current) current.socket.send({ type: 'mute', muted: true })
    current.timers.push(window.setTimeout(() => dispatch(current, { type: 'start-timeout' }), START_TIMEOUT_MS))

    // The level observer (spec 2 §9): every 100 ms, the microphone's volume and whether the
    // assistant is speaking.
    const mic = new LevelObserver()
    const assistant = new LevelObserver()
    current.observer = window.setInterval(() => {
      if (!live() || !current.audio) return
      const levels = current.audio.levels()
      const now = performance.now()
      const heard = mic.observe([levels.mic], now)
      const spoken = assistant.observe([levels.assistant], now)
      meters.set({ volume: Math.round(heard.volume * 20) / 20 })
      update({ userSpeaking: heard.speaking, speaking: spoken.speaking })
    }, LEVEL_OBSERVER_INTERVAL_MS)
  }, [config, dispatch, meters, onServerMessage, teardown, update])

  /** The mic button. */
  const toggle = useCallback(() => {
    const current = session.current
    if (!current) void start()
    else if (current.call.phase === 'listening') dispatch(current, { type: 'end', sent: current.socket?.send({ type: 'end' }) ?? false })
  }, [dispatch, start])

  /**
   * A message typed while listening goes into the call (the assistant answers by voice). Resolves
   * true when it was taken (the text box empties).
   */
  const sendText = useCallback(async (raw: string): Promise<boolean> => {
    const text = raw.trim()
    if (!text) return false
    const current = session.current
    if (!current || current.call.phase !== 'listening') {
      chatRef.current.notice(VOICE_TEXT.notInCall, 'error')
      return true
    }
    if (!current.socket?.send({ type: 'text', text })) {
      chatRef.current.notice(VOICE_TEXT.notInitialized, 'error')
      return true
    }
    chatRef.current.voiceTyped(text)
    return true
  }, [])

  // The header's mute toggle: silence the assistant here, and tell the server (it tells Vapi).
  useEffect(() => {
    mutedRef.current = muted
    const current = session.current
    if (!current) return
    current.audio?.setMuted(muted)
    current.socket?.send({ type: 'mute', muted })
  }, [muted])

  // Leaving the page ends the call (closing the socket makes the server end it).
  useEffect(() => teardown, [teardown])

  return { ...flags, meters, toggle, sendText }
}
