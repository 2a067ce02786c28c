import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useId, useRef, useState } from 'react'
import { CHAT_ERRORS, CHAT_TEXT, type ConversationSummary } from '#common/chat'
import { Button } from '#web/components/ui/button'
import { PageShell } from '#web/features/navigation/page-shell'
import { useDocumentTitle } from '#web/components/use-document-title'
import { toast } from '#web/lib/toast'
import { meQueryOptions } from '#web/features/auth/api'
import { useLogout } from '#web/features/auth/use-logout'
import { chatKeys, conversationsQueryOptions, deleteConversation, renameConversation, reopenConversation, voiceConfigQueryOptions } from './api'
import { ChatHeader } from './components/chat-header'
import { ChatInput } from './components/chat-input'
import { ConversationSidebar } from './components/conversation-sidebar'
import { MessageList } from './components/message-list'
import { useChat } from './use-chat'
import { useVoiceCall } from './voice/use-voice-call'

const VOICE_RESPONSES_KEY = 'momentum-coach.voice-responses'
const SEARCH_DEBOUNCE_MS = 250

function readVoiceResponses(): boolean {
  try {
    return window.localStorage.getItem(VOICE_RESPONSES_KEY) !== 'off'
  } catch {
    return true
  }
}

/** The search box's text, settled for a moment before it is sent to the server. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms)
    return () => window.clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** The assistant chat (/chat). */
export function ChatPage() {
  useDocumentTitle('Chat')
  const queryClient = useQueryClient()
  const me = useQuery(meQueryOptions())
  const firstName = me.data?.fullName.trim().split(/\s+/)[0] ?? ''
  const greeting = firstName ? `Hi ${firstName}! How can I help you today?` : 'Hi! How can I help you today?'
  const chat = useChat({ greeting })
  const { logout, isPending: loggingOut } = useLogout()

  const sidebarId = useId()
  const [sidebarOpen, setSidebarOpen] = useState(false)
  const [searchInput, setSearchInput] = useState('')
  const search = useDebounced(searchInput.trim(), SEARCH_DEBOUNCE_MS)
  const list = useQuery({ ...conversationsQueryOptions(search), placeholderData: keepPreviousData })
  const [showArchived, setShowArchived] = useState(false)
  const archivedList = useQuery({ ...conversationsQueryOptions('', true), enabled: showArchived })
  const voiceConfig = useQuery(voiceConfigQueryOptions())
  const [voiceResponses, setVoiceResponses] = useState(readVoiceResponses)
  const voice = useVoiceCall({ chat, muted: !voiceResponses, config: voiceConfig })

  // Toasts sit below the page's headers: here the chat's own header (h-16) is under the site's,
  // and holds the controls a toast would cover (the voice responses toggle, the title).
  useEffect(() => {
    const root = document.documentElement
    root.style.setProperty('--app-subheader-height', '64px')
    return () => {
      root.style.removeProperty('--app-subheader-height')
    }
  }, [])

  // 'Failed to load conversations' once each time the list ends in error.
  const listErrorsShown = useRef(0)
  useEffect(() => {
    if (list.isError && list.errorUpdateCount > listErrorsShown.current) {
      listErrorsShown.current = list.errorUpdateCount
      void toast({ title: CHAT_ERRORS.loadConversations, variant: 'destructive' })
    }
  }, [list.isError, list.errorUpdateCount])

  // Escape closes the mobile drawer.
  useEffect(() => {
    if (!sidebarOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setSidebarOpen(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [sidebarOpen])

  const rename = useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => renameConversation(id, title),
    onError: (error) => {
      console.error('Renaming the conversation failed:', error)
      void toast({ title: CHAT_ERRORS.updateConversation, variant: 'destructive' })
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: chatKeys.lists }),
  })

  const remove = useMutation({
    mutationFn: (id: string) => deleteConversation(id),
    onSuccess: (_result, id) => chat.forgetConversation(id),
    onError: (error) => {
      console.error('Deleting the conversation failed:', error)
      void toast({ title: CHAT_ERRORS.deleteConversation, variant: 'destructive' })
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: chatKeys.lists }),
  })

  const reopen = useMutation({
    mutationFn: (id: string) => reopenConversation(id),
    onSuccess: (_summary, id) => chat.reopened(id),
    onError: (error) => {
      console.error('Reopening the conversation failed:', error)
      void toast({ title: CHAT_ERRORS.updateConversation, variant: 'destructive' })
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: chatKeys.lists }),
  })

  const onDelete = useCallback(
    (conversation: ConversationSummary) => {
      if (!window.confirm(CHAT_TEXT.deleteConfirm)) return
      remove.mutate(conversation.id)
    },
    [remove],
  )

  const onSelect = async (id: string) => {
    if (await chat.selectConversation(id)) setSidebarOpen(false)
  }

  const onNewChat = async () => {
    if (await chat.newChat()) setSidebarOpen(false)
  }

  const onToggleVoiceResponses = () => {
    const next = !voiceResponses
    setVoiceResponses(next)
    try {
      window.localStorage.setItem(VOICE_RESPONSES_KEY, next ? 'on' : 'off')
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    void toast(
      next
        ? { title: CHAT_ERRORS.audioEnabledTitle, description: CHAT_ERRORS.audioEnabled }
        : { title: CHAT_ERRORS.audioDisabledTitle, description: CHAT_ERRORS.audioDisabled },
    )
  }

  return (
    <PageShell
      fill
      mainClassName="flex flex-col"
      aside={
        <ConversationSidebar
          id={sidebarId}
          open={sidebarOpen}
          onClose={() => setSidebarOpen(false)}
          search={searchInput}
          onSearchChange={setSearchInput}
          conversations={list.data}
          loading={list.isPending}
          failed={list.isError}
          onRetry={() => void list.refetch()}
          activeId={chat.conversationId}
          onSelect={(id) => void onSelect(id)}
          onRename={(id, title) => rename.mutate({ id, title })}
          onDelete={onDelete}
          onReopen={(id) => reopen.mutate(id)}
          archived={{
            open: showArchived,
            onToggle: () => setShowArchived((shown) => !shown),
            conversations: archivedList.data,
            loading: archivedList.isPending,
            failed: archivedList.isError,
          }}
          onNewChat={() => void onNewChat()}
          onLogOut={() => void logout()}
          loggingOut={loggingOut}
          busy={chat.loadingConversation}
        />
      }
    >
      <ChatHeader
        title={chat.conversationId ? CHAT_TEXT.currentConversation : greeting}
        sidebarId={sidebarId}
        sidebarOpen={sidebarOpen}
        onOpenSidebar={() => setSidebarOpen(true)}
        voiceResponses={voiceResponses}
        onToggleVoiceResponses={onToggleVoiceResponses}
      />
      {/* Focusable, so a long conversation can be scrolled from the keyboard. */}
      <div
        role="region"
        aria-label="Conversation"
        tabIndex={0}
        className="flex min-h-0 flex-1 flex-col overflow-y-auto focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
      >
        <MessageList
          messages={chat.messages}
          streamingText={chat.streamingText}
          typing={chat.processing}
          loading={chat.loadingConversation}
          hasEarlier={chat.hasEarlier}
          loadingEarlier={chat.loadingEarlier}
          onLoadEarlier={() => void chat.loadEarlier()}
          earlierCount={chat.earlierCount}
          live={chat.liveTranscripts}
        />
      </div>
      {chat.archived && chat.conversationId ? (
        <div className="flex items-center gap-3 border-t bg-muted px-4 py-2 text-sm text-muted-foreground">
          <p className="flex-1">{CHAT_TEXT.archivedNotice}</p>
          <Button variant="outline" size="sm" disabled={reopen.isPending} onClick={() => chat.conversationId && reopen.mutate(chat.conversationId)}>
            {CHAT_TEXT.reopen}
          </Button>
        </div>
      ) : null}
      {/* While listening, a typed message goes into the voice call (spec 2 §4). */}
      <ChatInput processing={chat.processing} onSend={voice.listening ? voice.sendText : chat.send} onVoice={voice.toggle} voice={voice} />
    </PageShell>
  )
}
