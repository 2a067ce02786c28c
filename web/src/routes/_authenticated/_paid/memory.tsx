import { createFileRoute } from '@tanstack/react-router'
import { MemoryPage } from '#web/features/memory/memory-page'

/** /memory (docs/decisions/083): what the coach remembers of the person, to see, correct, delete and pause. */
export const Route = createFileRoute('/_authenticated/_paid/memory')({
  component: MemoryPage,
})
