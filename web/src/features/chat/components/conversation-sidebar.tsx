import { Link } from '@tanstack/react-router'
import { ArchiveIcon, ChevronDownIcon, CircleUserRoundIcon, LogOutIcon, PlusIcon, SearchIcon, XIcon } from 'lucide-react'
import { useId } from 'react'
import type { ConversationSummary } from '#common/chat'
import { CHAT_TEXT } from '#common/chat'
import { Button } from '#web/components/ui/button'
import { Input } from '#web/components/ui/input'
import { cn } from '#web/lib/utils'
import { ConversationRow } from './conversation-row'

type ConversationSidebarProps = {
  id: string
  open: boolean
  onClose: () => void
  search: string
  onSearchChange: (value: string) => void
  conversations: ConversationSummary[] | undefined
  loading: boolean
  failed: boolean
  onRetry: () => void
  activeId: string | null
  onSelect: (id: string) => void
  onRename: (id: string, title: string) => void
  onDelete: (conversation: ConversationSummary) => void
  onReopen: (id: string) => void
  /** The 'Archived' section: shown on demand, below the open conversations. */
  archived: {
    open: boolean
    onToggle: () => void
    conversations: ConversationSummary[] | undefined
    loading: boolean
    failed: boolean
  }
  onNewChat: () => void
  onLogOut: () => void
  loggingOut: boolean
  busy: boolean
}

/**
 * The conversation history: search (which finds archived conversations too, marked), the open
 * conversations with their empty states, the archived ones in a section shown on demand, New Chat
 * and Log Out. A fixed column from the md breakpoint; below it, a drawer over an overlay.
 */
export function ConversationSidebar(props: ConversationSidebarProps) {
  const { open, onClose, search, conversations, loading, failed, archived } = props
  const searching = search.trim() !== ''
  const archivedListId = useId()

  const row = (conversation: ConversationSummary) => (
    <ConversationRow
      key={conversation.id}
      conversation={conversation}
      active={conversation.id === props.activeId}
      disabled={props.busy}
      onSelect={() => props.onSelect(conversation.id)}
      onRename={(title) => props.onRename(conversation.id, title)}
      onDelete={() => props.onDelete(conversation)}
      onReopen={() => props.onReopen(conversation.id)}
    />
  )

  let archivedBody
  if (!archived.open) archivedBody = null
  else if (archived.loading && !archived.conversations) archivedBody = <p className="px-4 py-3 text-center text-sm text-muted-foreground">{CHAT_TEXT.loadingArchived}</p>
  else if (archived.failed && !archived.conversations) archivedBody = <p className="px-4 py-3 text-center text-sm text-muted-foreground">We could not load your archived conversations.</p>
  else if (!archived.conversations || archived.conversations.length === 0)
    archivedBody = <p className="px-4 py-3 text-center text-sm text-muted-foreground">{CHAT_TEXT.noArchived}</p>
  else
    archivedBody = (
      <ul aria-label="Archived conversations" className="space-y-0.5 py-2">
        {archived.conversations.map(row)}
      </ul>
    )

  let body
  if (loading && !conversations) body = <p className="px-4 py-6 text-center text-sm text-muted-foreground">{CHAT_TEXT.loadingConversations}</p>
  else if (failed && !conversations)
    body = (
      <div className="flex flex-col items-center gap-2 px-4 py-6 text-center text-sm text-muted-foreground">
        <p>We could not load your conversations.</p>
        <Button variant="outline" size="sm" onClick={props.onRetry}>
          Try again
        </Button>
      </div>
    )
  else if (!conversations || conversations.length === 0)
    body = (
      <p className="px-4 py-6 text-center text-sm text-muted-foreground">{searching ? CHAT_TEXT.noMatches : CHAT_TEXT.noConversations}</p>
    )
  else
    body = (
      <ul aria-label="Conversations" className="space-y-0.5 py-2">
        {conversations.map(row)}
      </ul>
    )

  return (
    <>
      {/* The mobile overlay: tapping it closes the drawer (Escape does too, from the page). It covers the
          app's header too (same layer, later in the page). */}
      <div
        aria-hidden="true"
        onClick={onClose}
        className={cn('fixed inset-0 z-40 bg-foreground/40 md:hidden', open ? 'block' : 'hidden')}
        data-testid="sidebar-overlay"
      />
      <aside
        id={props.id}
        aria-label="Conversation history"
        className={cn(
          'fixed inset-y-0 left-0 z-40 flex w-72 max-w-[85vw] flex-col border-r bg-card shadow-lg transition-transform md:static md:z-auto md:translate-x-0 md:shadow-none',
          open ? 'translate-x-0' : '-translate-x-full max-md:invisible',
        )}
      >
        <div className="flex items-center gap-2 border-b p-3">
          <Button className="flex-1" onClick={props.onNewChat} disabled={props.busy}>
            <PlusIcon aria-hidden="true" />
            {CHAT_TEXT.newChat}
          </Button>
          <Button variant="ghost" size="icon" className="md:hidden" aria-label="Close conversations" onClick={onClose}>
            <XIcon aria-hidden="true" />
          </Button>
        </div>
        <div className="border-b p-3">
          <div className="relative">
            <SearchIcon className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
            <Input
              type="search"
              aria-label="Search conversations"
              placeholder={CHAT_TEXT.searchPlaceholder}
              value={search}
              maxLength={200}
              onChange={(event) => props.onSearchChange(event.target.value)}
              className="pl-9"
            />
          </div>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto" aria-busy={loading}>
          {body}
          {/* Searching finds archived ones among the results; otherwise they are here. */}
          {searching ? null : (
            <section aria-label={CHAT_TEXT.archived} className="border-t px-2 py-2">
              <Button
                variant="ghost"
                size="sm"
                className="w-full justify-start text-muted-foreground"
                aria-expanded={archived.open}
                aria-controls={archivedListId}
                onClick={archived.onToggle}
              >
                <ArchiveIcon aria-hidden="true" />
                <span className="flex-1 text-left">{CHAT_TEXT.archivedConversations}</span>
                <ChevronDownIcon aria-hidden="true" className={cn('transition-transform', archived.open && 'rotate-180')} />
              </Button>
              <div id={archivedListId} aria-busy={archived.loading}>
                {archivedBody}
              </div>
            </section>
          )}
        </div>
        <div className="grid gap-2 border-t p-3">
          <Link to="/memory" className="text-center text-sm text-muted-foreground underline-offset-4 hover:underline">What your coach remembers</Link>
          {/* The account page (issue 16): profile, password, sessions, schedule, billing. */}
          <Button asChild variant="ghost" className="w-full">
            <Link to="/account">
              <CircleUserRoundIcon aria-hidden="true" />
              Account
            </Link>
          </Button>
          <Button variant="outline" className="w-full" onClick={props.onLogOut} disabled={props.loggingOut}>
            <LogOutIcon aria-hidden="true" />
            {props.loggingOut ? 'Logging out...' : CHAT_TEXT.logOut}
          </Button>
        </div>
      </aside>
    </>
  )
}
