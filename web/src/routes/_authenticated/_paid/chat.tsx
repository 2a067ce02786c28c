import { createFileRoute } from '@tanstack/react-router'
import { ChatPage } from '#web/features/chat/chat-page'

export const Route = createFileRoute('/_authenticated/_paid/chat')({
  component: ChatPage,
})
