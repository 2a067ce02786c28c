import type { ComponentProps } from 'react'
import Markdown, { type Components } from 'react-markdown'
import rehypeSanitize from 'rehype-sanitize'
import remarkGfm from 'remark-gfm'

/**
 * A lesson's text: Markdown (with GitHub tables and lists), rendered without raw HTML and then
 * sanitised (rehype-sanitize's GitHub schema: no scripts, event handlers, styles or javascript:
 * links), so nothing from the database reaches the page unsanitised. Headings start at h3 under
 * the lesson's own h2.
 */
const components: Components = {
  h1: ({ node: _node, ...props }) => <h3 className="mt-6 text-lg font-semibold" {...props} />,
  h2: ({ node: _node, ...props }) => <h3 className="mt-6 text-lg font-semibold" {...props} />,
  h3: ({ node: _node, ...props }) => <h4 className="mt-5 font-semibold" {...props} />,
  h4: ({ node: _node, ...props }) => <h5 className="mt-4 font-semibold" {...props} />,
  h5: ({ node: _node, ...props }) => <h5 className="mt-4 font-semibold" {...props} />,
  h6: ({ node: _node, ...props }) => <h5 className="mt-4 font-semibold" {...props} />,
  p: ({ node: _node, ...props }) => <p className="mt-3 leading-7" {...props} />,
  ul: ({ node: _node, ...props }) => <ul className="mt-3 list-disc space-y-1.5 pl-6" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="mt-3 list-decimal space-y-1.5 pl-6" {...props} />,
  li: ({ node: _node, ...props }) => <li className="leading-7" {...props} />,
  blockquote: ({ node: _node, ...props }) => (
    <blockquote className="mt-4 border-l-4 border-brand-coach/60 bg-accent/50 py-2 pr-3 pl-4 text-foreground" {...props} />
  ),
  table: ({ node: _node, ...props }) => (
    <div className="mt-4 overflow-x-auto">
      <table className="w-full border-collapse text-left text-sm" {...props} />
    </div>
  ),
  th: ({ node: _node, ...props }) => <th className="border-b-2 border-border px-3 py-2 font-semibold" {...props} />,
  td: ({ node: _node, ...props }) => <td className="border-b border-border px-3 py-2 align-top" {...props} />,
  a: ({ node: _node, href, ...props }: ComponentProps<'a'> & { node?: unknown }) => {
    const external = typeof href === 'string' && /^https?:/i.test(href)
    return (
      <a
        href={href}
        className="font-medium text-primary underline underline-offset-4"
        {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
        {...props}
      />
    )
  },
  code: ({ node: _node, ...props }) => <code className="rounded bg-muted px-1 py-0.5 font-mono text-sm" {...props} />,
  img: ({ node: _node, alt, ...props }) => <img alt={alt ?? ''} loading="lazy" className="mt-4 max-w-full rounded-md" {...props} />,
}

export function LessonContent({ markdown }: { markdown: string }) {
  return (
    <div className="text-base text-foreground [&>*:first-child]:mt-0">
      <Markdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]} components={components} skipHtml>
        {markdown}
      </Markdown>
    </div>
  )
}
