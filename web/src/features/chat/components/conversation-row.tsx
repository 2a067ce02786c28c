import { ArchiveRestoreIcon, MessageSquareIcon, PencilIcon, Trash2Icon } from 'lucide-react'
import { useRef, useState, type KeyboardEvent } from 'react'
import { CHAT_TEXT, type ConversationSummary } from '#common/chat'
import { Button } from '#web/components/ui/button'
import { Input } from '#web/components/ui/input'
import { cn } from '#web/lib/utils'

type ConversationRowProps = {
  conversation: ConversationSummary
  active: boolean
  onSelect: () => void
  /** Saves a new title (already trimmed and non-blank). */
  onRename: (title: string) => void
  onDelete: () => void
  /** Reopens it (shown for an archived conversation). */
  onReopen: () => void
  disabled?: boolean
}

const dateFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })

/**
 * One saved conversation in the sidebar: select it, rename it inline (Enter saves,
 * Escape cancels, leaving the field saves, an empty title is not saved) or delete it. An archived
 * one says so and can be reopened.
 */
export function ConversationRow({ conversation, active, onSelect, onRename, onDelete, onReopen, disabled }: ConversationRowProps) {
  const archived = conversation.archivedAt !== null
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(conversation.title)
  // Enter and Escape end the edit themselves; the blur that follows must not save again.
  const settled = useRef(false)
  const renameButton = useRef<HTMLButtonElement>(null)

  const startEditing = () => {
    settled.current = false
    setDraft(conversation.title)
    setEditing(true)
  }

  const finish = (save: boolean) => {
    if (settled.current) return
    settled.current = true
    setEditing(false)
    const title = draft.trim()
    if (save && title !== '' && title !== conversation.title) onRename(title)
    // Back to the row's rename button, so keyboard users keep their place.
    window.setTimeout(() => renameButton.current?.focus(), 0)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault()
      finish(true)
    } else if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      finish(false)
    }
  }

  if (editing) {
    return (
      <li className="px-2 py-1">
        <Input
          aria-label="Conversation title"
          value={draft}
          maxLength={200}
          autoFocus
          onFocus={(event) => event.currentTarget.select()}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => finish(true)}
          className="h-9"
        />
      </li>
    )
  }

  return (
    <li className="group px-2">
      <div className={cn('flex items-center gap-1 rounded-md', active ? 'bg-secondary text-secondary-foreground' : 'hover:bg-muted')}>
        <button
          type="button"
          onClick={onSelect}
          disabled={disabled}
          aria-current={active ? 'true' : undefined}
          className="flex min-w-0 flex-1 items-center gap-2 rounded-md px-2 py-2 text-left text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-60"
        >
          <MessageSquareIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <span className="min-w-0 flex-1">
            <span className="block truncate font-medium">{conversation.title}</span>
            <span className="block text-xs text-muted-foreground">
              {dateFormat.format(new Date(conversation.updatedAt))}
              {archived ? ` · ${CHAT_TEXT.archived}` : null}
            </span>
          </span>
        </button>
        {archived ? (
          <Button variant="ghost" size="icon" className="size-8" aria-label={`${CHAT_TEXT.reopen} "${conversation.title}"`} title={CHAT_TEXT.reopen} onClick={onReopen} disabled={disabled}>
            <ArchiveRestoreIcon aria-hidden="true" />
          </Button>
        ) : null}
        <Button ref={renameButton} variant="ghost" size="icon" className="size-8" aria-label={`Rename "${conversation.title}"`} onClick={startEditing}>
          <PencilIcon aria-hidden="true" />
        </Button>
        <Button variant="ghost" size="icon" className="size-8 hover:text-destructive" aria-label={`Delete "${conversation.title}"`} onClick={onDelete}>
          <Trash2Icon aria-hidden="true" />
        </Button>
      </div>
    </li>
  )
}
