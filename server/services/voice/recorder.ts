/**
 * A voice call's conversation, saved like a text one: final transcripts only (partials are for the
 * screen), under spec 2 §5's rules, each marked spoken. A user transcript is kept only if it is
 * non-empty and differs from the previous one; the assistant's go through the chat's duplicate
 * rules as they are stored. The call writes into the conversation it was started from
 * (docs/decisions/084), else into a new one created at the first thing the user says (or types),
 * so a call in which the user said nothing leaves no conversation behind; either way nothing is
 * written before that, and the assistant's lines before it (its greeting) are written first.
 * Writes are made one after another in the order the finals came.
 */
import { acceptUserTranscript } from '#common/chat'

export type VoiceConversations = {
  /** Throws (NOT_FOUND) unless the conversation is the user's. */
  check(userId: string, conversationId: string): Promise<void>
  /** The conversation to write into: `conversationId` (checked again), or a new one when null. */
  open(userId: string, conversationId: string | null): Promise<string>
  /** `spoken`: a transcript (a line typed into the call is not). */
  addUser(userId: string, conversationId: string, text: string, spoken: boolean): Promise<void>
  addAssistant(userId: string, conversationId: string, text: string): Promise<unknown>
}

/** The assistant's lines kept before the user's first (the greeting and little more). */
const PENDING_ASSISTANT_MAX = 20
/** Writes waiting at once (finals come a few a minute; this only bounds a runaway upstream). */
const QUEUED_WRITES_MAX = 500

/** The transcript rules, pure: what of the finals is saved. */
export class TranscriptRules {
  #lastUser: string | null = null

  /** The user's final to save, trimmed, or null (empty, or the same as the previous one). */
  user(text: string): string | null {
    if (!acceptUserTranscript(this.#lastUser, text)) return null
    this.#lastUser = text.trim()
    return this.#lastUser
  }

  /** The assistant's final to save, trimmed, or null when empty (duplicates are decided as it is stored). */
  assistant(text: string): string | null {
    const trimmed = text.trim()
    return trimmed === '' ? null : trimmed
  }
}

export class VoiceRecorder {
  /** Where the call was written, once something was. */
  conversationId: string | null = null
  /** The conversation the call was started from (written into at the first thing the user says). */
  readonly #target: string | null
  readonly #store: VoiceConversations
  readonly #userId: string
  readonly #onError: (error: unknown) => void
  readonly #rules = new TranscriptRules()
  #chain: Promise<void> = Promise.resolve()
  #queued = 0
  #userSeen = false
  #pendingAssistant: string[] = []
  #failed = false

  constructor(store: VoiceConversations, userId: string, onError: (error: unknown) => void, target: string | null = null) {
    this.#store = store
    this.#target = target
    this.#userId = userId
    this.#onError = onError
  }

  /** A final user transcript. */
  userFinal(text: string): void {
    const kept = this.#rules.user(text)
    if (kept) this.#user(kept, true)
  }

  /** A message the user typed into the call (not a transcript: only its blankness is checked). */
  typed(text: string): void {
    const kept = text.trim()
    if (kept) this.#user(kept, false)
  }

  /** A final assistant transcript. */
  assistantFinal(text: string): void {
    const kept = this.#rules.assistant(text)
    if (!kept) return
    if (!this.#userSeen) {
      if (this.#pendingAssistant.length < PENDING_ASSISTANT_MAX) this.#pendingAssistant.push(kept)
      return
    }
    this.#enqueue(async () => {
      if (this.conversationId) await this.#store.addAssistant(this.#userId, this.conversationId, kept)
    })
  }

  /** Resolves once every write asked for so far is done (or failed). */
  flush(): Promise<void> {
    return this.#chain
  }

  #user(text: string, spoken: boolean): void {
    this.#userSeen = true
    this.#enqueue(async () => {
      if (!this.conversationId) {
        this.conversationId = await this.#store.open(this.#userId, this.#target)
        const greeting = this.#pendingAssistant
        this.#pendingAssistant = []
        for (const line of greeting) await this.#store.addAssistant(this.#userId, this.conversationId, line)
      }
      await this.#store.addUser(this.#userId, this.conversationId, text, spoken)
    })
  }

  #enqueue(write: () => Promise<void>): void {
    if (this.#failed) return
    if (this.#queued >= QUEUED_WRITES_MAX) {
      this.#fail(new Error('too many conversation writes waiting'))
      return
    }
    this.#queued++
    this.#chain = this.#chain.then(async () => {
      this.#queued--
      if (this.#failed) return
      try {
        await write()
      } catch (error) {
        this.#fail(error)
      }
    })
  }

  /** The first failure stops the saving (the call goes on) and is reported once. */
  #fail(error: unknown): void {
    if (this.#failed) return
    this.#failed = true
    this.#onError(error)
  }
}
