import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { ChatPage } from '../features/chat/chat-page'

export const Route = createFileRoute('/chat')({
  loader: prefetchSession,
  component: () => (
    <ProtectedRoute access="paid">
      <ChatPage />
    </ProtectedRoute>
  ),
})
