import type { UseQueryResult } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { CHAT_ERRORS } from '#common/chat'
import { VOICE_FORCED_END_MS, type VoiceConfigResponse, type VoiceServerMessage } from '#common/voice'
import { toast } from '../../../lib/toast'
import type { Chat } from '../use-chat'
import { CallAudio, createAudioContext } from './audio'
import { LEVEL_OBSERVER_INTERVAL_MS, LevelObserver } from './levels'
import { MeterStore } from './meter-store'
import { VoiceSocket } from './voice-socket'
import type { PlaybackStats } from './worklet-types'

/** The spec's voice texts (spec 2 §8). */
export const VOICE_TEXT = {
  activeTitle: 'Voice Active',
  active: 'Voice assistant is now listening. Click the microphone again to end the call.',
  endedTitle: 'Call Ended',
  ended: 'Voice call has been ended.',
  errorTitle: 'Voice Error',
  startFailed: 'Failed to start voice input.',
  endFailed: 'Failed to end voice call.',
  assistantErrorTitle: 'Voice Assistant Error',
  /** Text replies in the chat. */
  notInitialized: 'Sorry, the voice service is not initialized. Please try again later.',
  notInCall: 'Not currently in a call.',
  processed: 'Voice call ended. The conversation has been processed.',
  processFailed: "Sorry, I couldn't process the voice call. Please try again.",
} as const

/** Our own messages for failures the spec names no text for. */
const CONNECT_FAILED = 'Could not connect to the voice assistant. Please try again.'
const CONNECTION_LOST = 'The connection to the voice assistant was lost.'
const START_TIMED_OUT = 'The voice assistant did not answer. Please try again.'

/** How long the call may take to start listening after `start`. */
export const START_TIMEOUT_MS = 20_000

/** idle → starting → listening → ending → idle (spec 2 §4: idle, listening, ended). */
export type VoicePhase = 'idle' | 'starting' | 'listening' | 'ending'

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

type Session = {
  phase: Exclude<VoicePhase, 'idle'>
  context: AudioContext | null
  audio: CallAudio | null
  socket: VoiceSocket | null
  /** The assistant is talking, as the server says. */
  assistantTalking: boolean
  /** Final transcripts heard in this call. */
  finals: number
  timers: number[]
  observer: number | null
}

/**
 * The voice call of the chat (spec 2 §4 "Voice call", §8 voice toasts and text replies):
 * the microphone into the gateway in 20 ms frames, the assistant's audio out of it, transcripts
 * into the chat, the mute toggle honoured, and every flag reset when the call ends however it ends.
 */
export function useVoiceCall({ chat, muted, config }: { chat: Chat; muted: boolean; config: UseQueryResult<VoiceConfigResponse> }) {
  const [flags, setFlags] = useState<VoiceFlags>(IDLE)
  /** The volume (0 on end, with every flag) and the audio played: read by the meter alone. */
  const [meters] = useState(() => new MeterStore())
  const session = useRef<Session | null>(null)
  const mutedRef = useRef(muted)
  const chatRef = useRef(chat)
  const flagsRef = useRef(flags)
  useEffect(() => {
    chatRef.current = chat
    flagsRef.current = flags
  }, [chat, flags])

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

  /** The call is over: toast, tell the chat (the saved conversation, the text reply), reset. */
  const finish = useCallback(
    (how: { conversationId: string | null; failed: boolean }) => {
      const current = session.current
      if (!current) return
      const heard = current.finals > 0
      teardown()
      void toast({ title: VOICE_TEXT.endedTitle, description: VOICE_TEXT.ended })
      const reply = how.conversationId
        ? { text: VOICE_TEXT.processed, tone: 'info' as const }
        : heard || how.failed
          ? { text: VOICE_TEXT.processFailed, tone: 'error' as const }
          : null
      void chatRef.current.endVoiceCall({ conversationId: how.conversationId, reply })
    },
    [teardown],
  )

  const onServerMessage = useCallback(
    (message: VoiceServerMessage) => {
      const current = session.current
      if (!current) return
      switch (message.type) {
        case 'status':
          if (message.status === 'listening' && current.phase === 'starting') {
            current.phase = 'listening'
            update({ phase: 'listening', listening: true, processing: false })
            void toast({ title: VOICE_TEXT.activeTitle, description: VOICE_TEXT.active })
          }
          return
        case 'transcript':
          if (message.final) current.finals += 1
          chatRef.current.voiceTranscript(message)
          return
        case 'speech':
          if (message.role === 'assistant') current.assistantTalking = message.status === 'started'
          // The user talks over the assistant: what it was about to say is dropped at once.
          else if (message.status === 'started' && (current.assistantTalking || flagsRef.current.playing)) current.audio?.flush()
          return
        case 'interrupted':
          current.audio?.flush()
          return
        case 'ended':
          finish({ conversationId: message.conversationId, failed: message.reason === 'upstream-error' })
          return
        case 'error':
          if (message.code === 'VOICE_NOT_CONFIGURED') {
            void toast({ title: CHAT_ERRORS.voiceUnavailableTitle, description: CHAT_ERRORS.voiceUnavailable })
          } else if (message.code === 'VOICE_NOT_ACTIVE') {
            // The server has no call for this socket: its text reply, and the call is over here too.
            chatRef.current.notice(message.message, 'error')
            if (current.phase !== 'starting') finish({ conversationId: null, failed: false })
            else teardown()
            return
          } else {
            void toast({ title: VOICE_TEXT.assistantErrorTitle, description: message.message, variant: 'destructive' })
          }
          // The call cannot go on: it never started, or the error says it ended (spec 2 §4).
          if (current.phase === 'starting') teardown()
          else if (/ended/i.test(message.message)) finish({ conversationId: null, failed: false })
          return
        default:
          return
      }
    },
    [finish, teardown, update],
  )

  /** Starts a voice call (the mic button while idle). */
  const start = useCallback(async () => {
    if (session.current) return
    // The configuration first (spec 2 §8): not loaded or invalid, or voice not available.
    let voiceConfig = config.data
    if (config.isError) {
      void toast({ title: CHAT_ERRORS.configErrorTitle, description: CHAT_ERRORS.configError, variant: 'destructive' })
      return
    }
    if (!voiceConfig) {
      const fetched = await config.refetch()
      if (!fetched.data) {
        void toast({ title: CHAT_ERRORS.configErrorTitle, description: CHAT_ERRORS.configError, variant: 'destructive' })
        return
      }
      voiceConfig = fetched.data
    }
    if (!voiceConfig.available) {
      void toast({ title: CHAT_ERRORS.voiceUnavailableTitle, description: CHAT_ERRORS.voiceUnavailable })
      return
    }
    if (!voiceConfig.assistantId) {
      void toast({ title: CHAT_ERRORS.configErrorTitle, description: CHAT_ERRORS.configError, variant: 'destructive' })
      return
    }

    const current: Session = { phase: 'starting', context: null, audio: null, socket: null, assistantTalking: false, finals: 0, timers: [], observer: null }
    session.current = current
    update({ ...IDLE, phase: 'starting', processing: true })
    const stillCurrent = () => session.current === current
    try {
      // In the click's own turn, so the browser lets the call's audio play.
      current.context = createAudioContext()
    } catch (error) {
      console.error('Voice input could not start:', error)
      teardown()
      void toast({ title: VOICE_TEXT.errorTitle, description: VOICE_TEXT.startFailed, variant: 'destructive' })
      return
    }

    if (!(await chatRef.current.beginVoiceCall()) || !stillCurrent()) {
      if (stillCurrent()) teardown()
      return
    }

    try {
      current.audio = await CallAudio.start(
        current.context,
        {
          onFrame: (frame) => {
            if (current.phase === 'listening' || current.phase === 'ending') current.socket?.sendAudio(frame)
          },
          onPlaybackStats: (stats: PlaybackStats) => {
            if (!stillCurrent()) return
            update({ playing: stats.playing })
            meters.set({ playedMs: stats.playedMs })
          },
        },
        mutedRef.current,
      )
    } catch (error) {
      console.error('Voice input could not start:', error)
      if (!stillCurrent()) return
      teardown()
      void toast({ title: VOICE_TEXT.errorTitle, description: VOICE_TEXT.startFailed, variant: 'destructive' })
      return
    }
    if (!stillCurrent()) {
      current.audio.close()
      return
    }

    try {
      current.socket = await VoiceSocket.connect({
        onMessage: onServerMessage,
        onAudio: (bytes) => {
          if (stillCurrent() && !mutedRef.current) current.audio?.play(bytes)
        },
        onClose: () => {
          if (!stillCurrent()) return
          if (current.phase === 'ending') finish({ conversationId: null, failed: false })
          else if (current.phase === 'starting') {
            teardown()
            void toast({ title: VOICE_TEXT.assistantErrorTitle, description: CONNECT_FAILED, variant: 'destructive' })
          } else {
            void toast({ title: VOICE_TEXT.assistantErrorTitle, description: CONNECTION_LOST, variant: 'destructive' })
            finish({ conversationId: null, failed: current.finals > 0 })
          }
        },
      })
    } catch (error) {
      console.error('The voice gateway could not be reached:', error)
      if (!stillCurrent()) return
      teardown()
      void toast({ title: VOICE_TEXT.assistantErrorTitle, description: CONNECT_FAILED, variant: 'destructive' })
      return
    }
    if (!stillCurrent()) {
      current.socket.close()
      return
    }
    current.socket.start()
    if (mutedRef.current) current.socket.send({ type: 'mute', muted: true })
    current.timers.push(
      window.setTimeout(() => {
        if (!stillCurrent() || current.phase !== 'starting') return
        teardown()
        void toast({ title: VOICE_TEXT.assistantErrorTitle, description: START_TIMED_OUT, variant: 'destructive' })
      }, START_TIMEOUT_MS),
    )

    // The level observer (spec 2 §9): every 100 ms, the microphone's volume and whether the
    // assistant is speaking.
    const mic = new LevelObserver()
    const assistant = new LevelObserver()
    current.observer = window.setInterval(() => {
      if (!stillCurrent() || !current.audio) return
      const levels = current.audio.levels()
      const now = performance.now()
      const heard = mic.observe([levels.mic], now)
      const spoken = assistant.observe([levels.assistant], now)
      meters.set({ volume: Math.round(heard.volume * 20) / 20 })
      update({ userSpeaking: heard.speaking, speaking: spoken.speaking })
    }, LEVEL_OBSERVER_INTERVAL_MS)
  }, [config, finish, meters, onServerMessage, teardown, update])

  /** Ends the call (the mic button while listening); resets by itself if no confirmation comes. */
  const end = useCallback(() => {
    const current = session.current
    if (!current || current.phase !== 'listening') return
    if (!current.socket?.send({ type: 'end' })) {
      teardown()
      void toast({ title: VOICE_TEXT.errorTitle, description: VOICE_TEXT.endFailed, variant: 'destructive' })
      return
    }
    current.phase = 'ending'
    update({ phase: 'ending', processing: true })
    current.timers.push(
      window.setTimeout(() => {
        if (session.current === current) finish({ conversationId: null, failed: false })
      }, VOICE_FORCED_END_MS),
    )
  }, [finish, teardown, update])

  /** The mic button. */
  const toggle = useCallback(() => {
    if (!session.current) void start()
    else end()
  }, [end, start])

  /**
   * A message typed while listening goes into the call (the assistant answers by voice). Resolves
   * true when it was taken (the text box empties).
   */
  const sendText = useCallback(async (raw: string): Promise<boolean> => {
    const text = raw.trim()
    if (!text) return false
    const current = session.current
    if (!current || current.phase !== 'listening') {
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
