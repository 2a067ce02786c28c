// Compiles the server, the worker and the database commands into dist/ (part of `npm run build`;
// `npm start` and `npm run worker` run the result with plain node). esbuild bundles our own code
// (server/, worker/, common/, the `#` imports of package.json included) into ES modules that keep
// the entries' paths (dist/server/index.js, dist/worker/index.js, ...); the packages stay imports
// from node_modules, and a dynamic import stays a separate chunk loaded when first needed.
// dist/meta.json lists every source file read: scripts/ensure-build.mjs rebuilds when one changed.
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The programs dist/ holds, by source path (each is built to dist/<same path>.js). */
export const ENTRIES = ['server/index.ts', 'worker/index.ts', 'server/db/migrate-cli.ts', 'scripts/db-seed.ts', 'scripts/stripe-setup.ts', 'scripts/vapi-setup.ts']

/** Builds into `outdir` (dist/ unless given). */
export async function buildServer(outdir = join(root, 'dist')) {
  rmSync(outdir, { recursive: true, force: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outbase: '.',
    outdir,
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  })
  const inputs = Object.keys(result.metafile.inputs).sort()
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify({ inputs }, null, 2) + '\n')
  return { inputs }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now()
  const { inputs } = await buildServer(process.argv[2])
  console.log(`Built the server and the worker into dist/ (${inputs.length} files, ${Math.round(performance.now() - started)} ms).`)
}
