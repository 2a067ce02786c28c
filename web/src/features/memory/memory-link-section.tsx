import { Link } from '@tanstack/react-router'
import { BrainIcon } from 'lucide-react'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'

/** The account page's way to /memory (docs/decisions/083): what the coach remembers, to see, correct, delete or pause. */
export function MemoryLinkSection() {
  return (
    <SectionCard title="What your coach remembers" description="The facts your coach learned about you in your calls, chats and texts: see them, correct or delete them, or pause the memory.">
      <Button asChild variant="outline">
        <Link to="/memory">
          <BrainIcon aria-hidden="true" />
          See what your coach remembers
        </Link>
      </Button>
    </SectionCard>
  )
}
