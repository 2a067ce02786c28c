import { twMerge as fullTwMerge } from 'tailwind-merge'
import { describe, expect, it } from 'vitest'
import { classTokens } from '../../scripts/class-tokens'

// The web module is loaded by a computed path: the server's type check must not follow it into the web app.
type TrimmedMerge = { twMerge: (classes: string) => string }
const { twMerge } = (await import(/* @vite-ignore */ new URL('../../web/src/lib/tailwind-merge.gen.ts', import.meta.url).href)) as TrimmedMerge

/**
 * web/src/lib/tailwind-merge.gen.ts (scripts/tailwind-merge-config.ts) is tailwind-merge's default
 * configuration cut down to the classes of web/src. For those classes it must merge exactly as
 * the full `twMerge` does; a class the app starts using outside what it kept fails here.
 */
describe('the trimmed tailwind-merge', () => {
  const tokens = classTokens()
  // The words the full merge takes for classes (a class merged with itself collapses to one).
  const classes = tokens.filter((token) => fullTwMerge(`${token} ${token}`) === token)

  it('reads the classes of web/src', () => {
    expect(classes.length).toBeGreaterThan(300)
    expect(classes).toEqual(expect.arrayContaining(['bg-primary', 'size-5', 'hover:bg-primary-hover', 'focus-visible:outline-ring', 'aria-invalid:border-destructive']))
  })

  it('takes a word for a class exactly when the full merge does', () => {
    // A word that is no class is kept as it is, whatever stands beside it, by both merges; so
    // with this, the pairs of classes below cover every pair of words.
    const differing = tokens.filter((token) => twMerge(`${token} ${token}`) !== fullTwMerge(`${token} ${token}`))
    expect(differing).toEqual([])
  })

  it('merges every ordered pair of the classes as the full merge does', () => {
    const differing: string[] = []
    for (const first of classes) {
      for (const second of classes) {
        const pair = `${first} ${second}`
        if (twMerge(pair) !== fullTwMerge(pair)) differing.push(`${pair} -> ${twMerge(pair)} (full: ${fullTwMerge(pair)})`)
      }
    }
    // When this fails, run `node --import tsx scripts/tailwind-merge-config.ts` and commit the module.
    expect(differing).toEqual([])
  })

  it('would notice a class it does not know: it keeps what the full merge replaces', () => {
    expect(tokens).not.toContain('columns-2')
    expect(fullTwMerge('columns-2 columns-3')).toBe('columns-3')
    expect(twMerge('columns-2 columns-3')).toBe('columns-2 columns-3')
  })
})
