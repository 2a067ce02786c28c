/**
 * Every whitespace-separated word of every string in the web app's source (web/src): string
 * literals, JSX attribute values and the literal parts of template strings, read with the
 * TypeScript parser. The Tailwind classes the app uses are among them (with words of UI text,
 * which name no class). Used to generate web/src/lib/tailwind-merge.gen.ts and by its test.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export const webSrc = fileURLToPath(new URL('../web/src/', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) && !/\.gen\.ts$/.test(entry.name) ? [full] : []
  })
}

/** The words, sorted, each once. */
export function classTokens(dir: string = webSrc): string[] {
  const tokens = new Set<string>()
  for (const file of sourceFiles(dir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
        for (const word of node.text.split(/\s+/)) if (word) tokens.add(word)
      }
      node.forEachChild(visit)
    }
    visit(source)
  }
  return [...tokens].sort()
}
