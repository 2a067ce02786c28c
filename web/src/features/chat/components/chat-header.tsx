import { Link } from '@tanstack/react-router'
import { BookOpenIcon, MessagesSquareIcon, Volume2Icon, VolumeXIcon } from 'lucide-react'
import { CHAT_TEXT } from '#common/chat'
import { Button } from '#web/components/ui/button'

type ChatHeaderProps = {
  /** 'Current Conversation' when one is active, otherwise a greeting. */
  title: string
  sidebarId: string
  sidebarOpen: boolean
  onOpenSidebar: () => void
  voiceResponses: boolean
  onToggleVoiceResponses: () => void
}

/** The chat header: the mobile history button, the title, 'Courses' and the voice-responses toggle. */
export function ChatHeader({ title, sidebarId, sidebarOpen, onOpenSidebar, voiceResponses, onToggleVoiceResponses }: ChatHeaderProps) {
  return (
    <header className="flex h-16 shrink-0 items-center gap-2 border-b bg-card px-3 sm:px-4">
      <Button
        variant="ghost"
        size="icon"
        className="md:hidden"
        aria-label="Open conversations"
        aria-controls={sidebarId}
        aria-expanded={sidebarOpen}
        onClick={onOpenSidebar}
      >
        {/* Not the app's Menu icon: this opens the conversation history (spec 2 §2), the app menu is in the header above. */}
        <MessagesSquareIcon aria-hidden="true" />
      </Button>
      <h1 className="min-w-0 flex-1 truncate text-base font-semibold sm:text-lg">{title}</h1>
      <Button asChild variant="outline" size="sm">
        <Link to="/courses">
          <BookOpenIcon aria-hidden="true" />
          {CHAT_TEXT.courses}
        </Link>
      </Button>
      <Button
        variant="ghost"
        size="icon"
        aria-label="Voice responses"
        aria-pressed={voiceResponses}
        title={voiceResponses ? 'Mute voice responses' : 'Enable voice responses'}
        onClick={onToggleVoiceResponses}
      >
        {voiceResponses ? <Volume2Icon aria-hidden="true" /> : <VolumeXIcon aria-hidden="true" />}
      </Button>
    </header>
  )
}
