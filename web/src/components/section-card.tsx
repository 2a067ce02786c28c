import { useId, type ReactNode } from 'react'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from './ui/card'

type SectionCardProps = {
  title: string
  description?: ReactNode
  children: ReactNode
  className?: string
  /** Extra attributes of the card (a test id). */
  'data-testid'?: string
}

/**
 * One section of a page: a card that is a region named by its h2 (screen readers list the page's
 * sections by them), with an optional description under the title.
 */
export function SectionCard({ title, description, children, className, 'data-testid': testId }: SectionCardProps) {
  const id = useId()
  return (
    <Card role="region" aria-labelledby={id} className={className} data-testid={testId}>
      <CardHeader>
        <CardTitle as="h2" id={id}>
          {title}
        </CardTitle>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  )
}
