/**
 * The documentation holds together: the README stays a short map, every page of docs/ is reachable
 * from it, every relative link (and the section it names) exists, and every decision record is in
 * the decisions index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const README = join(ROOT, 'README.md')
const DOCS = join(ROOT, 'docs')
const DECISIONS = join(DOCS, 'decisions')
const README_MAX_LINES = 250

type Link = { target: string; line: number }

/** Markdown with fenced code blocks and inline code spans blanked out (their lines kept). */
function withoutCode(markdown: string): string {
  let fence: string | null = null
  return markdown
    .split('\n')
    .map((line) => {
      const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
      if (fence) {
        if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length) fence = null
        return ''
      }
      if (opener) {
        fence = opener[1]!
        return ''
      }
      return line.replace(/(`+)[^`]*?\1/g, '')
    })
    .join('\n')
}

/** The inline links `[text](target)` and reference definitions `[label]: target` outside code. */
function markdownLinks(markdown: string): Link[] {
  const links: Link[] = []
  withoutCode(markdown)
    .split('\n')
    .forEach((text, index) => {
      for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1]!, line: index + 1 })
      const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text)
      if (definition) links.push({ target: definition[1]!, line: index + 1 })
    })
  return links
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a page's headings (repeated headings get -1, -2, … as on GitHub). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | null = null
  for (const line of markdown.split('\n')) {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length) fence = null
      continue
    }
    if (opener) {
      fence = opener[1]!
      continue
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = headingSlug(heading[1]!)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

type Page = { path: string; markdown: string }

/** A link to another site, a mail address or any other scheme: not ours to check. */
const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')

/**
 * The broken relative links of these pages, as "page:line → target (why)". A link must name a file
 * or folder that exists (relative to its page) and, with a #fragment into a markdown page, one of
 * that page's headings.
 */
function brokenLinks(pages: readonly Page[], read: (path: string) => string | undefined): string[] {
  const broken: string[] = []
  for (const page of pages) {
    for (const { target, line } of markdownLinks(page.markdown)) {
      if (isExternal(target)) continue
      const where = `${relative(ROOT, page.path)}:${line} → ${target}`
      const [pathPart = '', fragment] = target.split('#', 2) as [string, string | undefined]
      const file = pathPart === '' ? page.path : resolve(dirname(page.path), decodeURIComponent(pathPart.split('?')[0]!))
      if (target.startsWith('/')) {
        broken.push(`${where} (absolute: write it relative to the page)`)
        continue
      }
      const markdown = read(file)
      if (markdown === undefined) {
        broken.push(`${where} (no such file)`)
        continue
      }
      if (fragment && file.endsWith('.md') && !headingAnchors(markdown).has(decodeURIComponent(fragment).toLowerCase())) {
        broken.push(`${where} (no such heading)`)
      }
    }
  }
  return broken
}

/** The markdown pages under docs/ that no chain of links from the README reaches. */
function unreachablePages(readme: Page, docs: readonly Page[]): string[] {
  const byPath = new Map(docs.map((page) => [page.path, page]))
  const reached = new Set<string>()
  const queue: Page[] = [readme]
  while (queue.length > 0) {
    const page = queue.shift()!
    for (const { target } of markdownLinks(page.markdown)) {
      if (isExternal(target) || target.startsWith('#') || target.startsWith('/')) continue
      const file = resolve(dirname(page.path), decodeURIComponent(target.split('#')[0]!.split('?')[0]!))
      const next = byPath.get(file)
      if (next && !reached.has(file)) {
        reached.add(file)
        queue.push(next)
      }
    }
  }
  return docs.filter((page) => !reached.has(page.path)).map((page) => relative(ROOT, page.path))
}

/** The decision records (NNN-slug.md) the index does not link. */
function decisionsMissingFromIndex(records: readonly string[], index: string): string[] {
  const linked = new Set(markdownLinks(index).map(({ target }) => target.split('#')[0]!.replace(/^\.\//, '')))
  return records.filter((name) => !linked.has(name))
}

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return markdownFiles(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

function readIfExists(path: string): string | undefined {
  if (!existsSync(path)) return undefined
  return statSync(path).isDirectory() ? '' : readFileSync(path, 'utf8')
}

const page = (path: string): Page => ({ path, markdown: readFileSync(path, 'utf8') })
const readme = page(README)
const docs = markdownFiles(DOCS).map(page)

describe('the documentation', () => {
  it(`keeps the README to at most ${README_MAX_LINES} lines`, () => {
    const lines = readme.markdown.replace(/\n+$/, '').split('\n').length
    expect(lines, `README.md has ${lines} lines: move detail into docs/`).toBeLessThanOrEqual(README_MAX_LINES)
  })

  it('has every relative link of the README and docs/ pointing at a file (and heading) that exists', () => {
    expect(docs.length).toBeGreaterThan(0)
    expect(brokenLinks([readme, ...docs], readIfExists)).toEqual([])
  })

  it('reaches every page under docs/ by links from the README', () => {
    expect(unreachablePages(readme, docs)).toEqual([])
  })

  it('lists every decision record in the decisions index', () => {
    const records = readdirSync(DECISIONS).filter((name) => /^\d{3}-.+\.md$/.test(name))
    expect(records.length).toBeGreaterThan(0)
    expect(decisionsMissingFromIndex(records, readFileSync(join(DECISIONS, 'README.md'), 'utf8'))).toEqual([])
  })
})

describe('the documentation checks catch', () => {
  const at = (name: string) => join(ROOT, name)
  const files: Record<string, string> = {
    [at('README.md')]: '# Title\n\n[ops](docs/ops.md#running) and [gone](docs/gone.md)\n',
    [at('docs/ops.md')]: '# Ops\n\n## Running\n\n[back](../README.md#title) [bad section](../README.md#nowhere)\n',
    [at('docs/orphan.md')]: '# Orphan\n\n[ops](ops.md)\n',
  }
  const read = (path: string) => files[path]
  const pages = Object.entries(files).map(([path, markdown]) => ({ path, markdown }))

  it('a link to a missing file or heading, and an absolute one', () => {
    const withAbsolute = [...pages, { path: at('docs/abs.md'), markdown: '[x](/docs/ops.md)\n' }]
    expect(brokenLinks(withAbsolute, read)).toEqual([
      'README.md:3 → docs/gone.md (no such file)',
      'docs/ops.md:5 → ../README.md#nowhere (no such heading)',
      'docs/abs.md:1 → /docs/ops.md (absolute: write it relative to the page)',
    ])
  })

  it('a page that links out but that nothing reachable links to', () => {
    expect(unreachablePages(pages[0]!, pages.slice(1))).toEqual(['docs/orphan.md'])
  })

  it('a decision record left out of the index', () => {
    const index = '| [001](001-one.md) | One |\n| [003](./003-three.md) | Three |\n'
    expect(decisionsMissingFromIndex(['001-one.md', '002-two.md', '003-three.md'], index)).toEqual(['002-two.md'])
  })

  it('links only outside code, and headings as GitHub anchors them', () => {
    const markdown = '# A `code` heading: with punctuation!\n\n`[no](a.md)` [yes](b.md)\n\n```\n[no](c.md)\n# not a heading\n```\n\n## Again\n## Again\n'
    expect(markdownLinks(markdown).map((link) => link.target)).toEqual(['b.md'])
    expect([...headingAnchors(markdown)]).toEqual(['a-code-heading-with-punctuation', 'again', 'again-1'])
    expect(headingSlug('2. Server-sent events: chat replies')).toBe('2-server-sent-events-chat-replies')
  })
})
