/**
 * Writes web/src/lib/tailwind-merge.gen.ts: tailwind-merge's own default configuration cut down to
 * the class groups that the app's classes belong to (docs/decisions/067). The merge it builds
 * gives the same result as the full `twMerge` for every class the app uses, in a fraction of the
 * bytes; test/unit/tailwind-merge-config.test.ts checks that for every ordered pair of them, so a
 * class outside those groups fails it until this is run again:
 *
 *   node --import tsx scripts/tailwind-merge-config.ts
 *
 * A class's group is found with a one-group merge per group (a class merged with itself collapses
 * to one only in its own group). Keeping whole groups keeps the result: the full configuration
 * finds a class's group among the groups that can hold it, in order, and a subset that still has
 * that group finds the same one.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createTailwindMerge, getDefaultConfig, twMerge, validators, type Config as MergeConfig } from 'tailwind-merge'
import { classTokens, webSrc } from './class-tokens'

type Config = MergeConfig<string, string>
type Definition = Config['classGroups'][string][number]

const outFile = path.join(webSrc, 'lib', 'tailwind-merge.gen.ts')
const full: Config = getDefaultConfig() as Config

/** A merge with only the given class groups of the default configuration and no conflicts between groups. */
function mergeWith(classGroups: Config['classGroups']) {
  return createTailwindMerge(() => ({ ...full, cacheSize: 0, classGroups, conflictingClassGroups: {}, conflictingClassGroupModifiers: {} }))
}
/** Does the merge take `token` for a class of one of its groups (a class merged with itself collapses to one)? */
const holds = (merge: (classes: string) => string, token: string) => merge(`${token} ${token}`) === token

/**
 * A group's definitions with only the leaves (strings, validators, theme getters, numbered in
 * reading order) that `keepLeaf` keeps, in the same nesting and order; objects left empty go.
 */
function pruned(definitions: readonly Definition[], keepLeaf: (leaf: number) => boolean, counter = { next: 0 }): Definition[] {
  const result: Definition[] = []
  for (const definition of definitions) {
    if (typeof definition === 'string' || typeof definition === 'function') {
      if (keepLeaf(counter.next++)) result.push(definition)
      continue
    }
    const entries = Object.entries(definition)
      .map(([name, items]) => [name, pruned(items, keepLeaf, counter)] as const)
      .filter(([, items]) => items.length > 0)
    if (entries.length > 0) result.push(Object.fromEntries(entries))
  }
  return result
}
const leafCount = (definitions: readonly Definition[]) => {
  let count = 0
  pruned(definitions, () => (count++, false))
  return count
}

// For each class of the app: the groups that can hold it, and in each the leaves that can.
const groupIds = Object.keys(full.classGroups)
const groupMerges = new Map(groupIds.map((id) => [id, mergeWith({ [id]: full.classGroups[id]! })]))
const leafMerges = new Map(
  groupIds.map((id) => {
    const definitions = full.classGroups[id]!
    return [id, Array.from({ length: leafCount(definitions) }, (_, leaf) => mergeWith({ [id]: pruned(definitions, (n) => n === leaf) }))]
  }),
)
const keptLeaves = new Map<string, Set<number>>()
for (const token of classTokens()) {
  const groups = groupIds.filter((id) => holds(groupMerges.get(id)!, token))
  if (holds(twMerge, token) && groups.length === 0) throw new Error(`no class group found for ${token}`)
  for (const id of groups) {
    const leaves = leafMerges.get(id)!.flatMap((merge, leaf) => (holds(merge, token) ? [leaf] : []))
    if (leaves.length === 0) throw new Error(`no definition of ${id} found for ${token}`)
    if (!keptLeaves.has(id)) keptLeaves.set(id, new Set())
    for (const leaf of leaves) keptLeaves.get(id)!.add(leaf)
  }
}
const kept = groupIds.filter((id) => keptLeaves.has(id))
const keep = new Set(kept)

// Source text for a definition: validators by name, theme getters as theme<Key> constants.
const validatorNames = new Map<unknown, string>(Object.entries(validators).map(([name, fn]) => [fn, name]))
const usedValidators = new Set<string>()
const usedThemeKeys = new Set<string>()
const themeConst = (key: string) => `theme${key.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`)

function source(value: Definition | readonly Definition[] | Record<string, readonly Definition[]>): string {
  if (typeof value === 'string') return `'${value}'`
  if (typeof value === 'function') {
    const getter = value as { isThemeGetter?: boolean; themeKey?: string }
    if (getter.isThemeGetter && getter.themeKey) {
      usedThemeKeys.add(getter.themeKey)
      return themeConst(getter.themeKey)
    }
    const name = validatorNames.get(value)
    if (!name) throw new Error(`unknown function in the default configuration: ${String(value)}`)
    usedValidators.add(name)
    return name
  }
  if (Array.isArray(value)) return `[${value.map((item) => source(item as Definition)).join(', ')}]`
  return `{ ${Object.entries(value).map(([name, items]) => `${key(name)}: ${source(items)}`).join(', ')} }`
}

const classGroups = kept.map((id) => `    ${key(id)}: ${source(pruned(full.classGroups[id]!, (leaf) => keptLeaves.get(id)!.has(leaf)))},`).join('\n')
const restricted = (record: Partial<Record<string, readonly string[]>>) =>
  Object.entries(record)
    .filter(([id]) => keep.has(id))
    .map(([id, ids = []]) => [id, ids.filter((other) => keep.has(other))] as const)
    .filter(([, ids]) => ids.length > 0)
    .map(([id, ids]) => `    ${key(id)}: [${ids.map((other) => `'${other}'`).join(', ')}],`)
    .join('\n')
const themeKeys = [...usedThemeKeys].sort()
const theme = themeKeys.map((name) => `    ${key(name)}: ${source(full.theme[name] ?? [])},`).join('\n')
const strings = (items: readonly string[] | undefined) => `[${(items ?? []).map((item) => `'${item}'`).join(', ')}]`

const text = `// Generated by scripts/tailwind-merge-config.ts from the classes in web/src: do not edit; run
// \`node --import tsx scripts/tailwind-merge-config.ts\` again when the unit test says a class is missing.
// tailwind-merge's default configuration, cut down to the ${kept.length} of its ${groupIds.length} class groups that the app's classes
// belong to, each with only the definitions that hold one of them.
import { createTailwindMerge, fromTheme, validators } from 'tailwind-merge'

const { ${[...usedValidators].sort().join(', ')} } = validators
${themeKeys.map((name) => `const ${themeConst(name)} = fromTheme('${name}')`).join('\n')}

/** Merges Tailwind classes as tailwind-merge's \`twMerge\` does, for the class groups the app uses. */
export const twMerge = /* @__PURE__ */ createTailwindMerge(() => ({
  cacheSize: ${full.cacheSize},
  theme: {
${theme}
  },
  classGroups: {
${classGroups}
  },
  conflictingClassGroups: {
${restricted(full.conflictingClassGroups)}
  },
  conflictingClassGroupModifiers: {
${restricted(full.conflictingClassGroupModifiers)}
  },
  postfixLookupClassGroups: ${strings(full.postfixLookupClassGroups?.filter((id) => keep.has(id)))},
  orderSensitiveModifiers: ${strings(full.orderSensitiveModifiers)},
}))
`
writeFileSync(outFile, text)
console.log(`${path.relative(process.cwd(), outFile)}: ${kept.length} of ${groupIds.length} class groups`)
