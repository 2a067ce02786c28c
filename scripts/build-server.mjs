// Compiles the server, the worker and the database commands into dist/ (part of `npm run build`;
// `npm start` and `npm run worker` run the result with plain node). esbuild bundles our own code
// (server/, worker/, common/, the `#` imports of package.json included) and the packages it imports
// into ES modules that keep the entries' paths (dist/server/index.js, dist/worker/index.js, ...);
// code shared between entries goes to dist/chunks/, and a dynamic import stays a separate chunk
// loaded when first needed. Only EXTERNAL stays an import from node_modules at run time.
// dist/meta.json lists every file of ours the build read: scripts/ensure-build.mjs rebuilds when one
// changed (the packages' files change with package-lock.json, which it checks too).
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The programs dist/ holds, by source path (each is built to dist/<same path>.js). */
export const ENTRIES = ['server/index.ts', 'worker/index.ts', 'server/db/migrate-cli.ts', 'scripts/db-seed.ts', 'scripts/stripe-setup.ts', 'scripts/vapi-setup.ts', 'scripts/calls-status.ts', 'scripts/staff.ts']

/**
 * The packages that stay in node_modules (docs/decisions/066-compiled-server.md): native addons
 * (loaded from a platform-specific .node file: argon2, sharp and its libvips), PGlite (reads its
 * WebAssembly and data files next to its module) and pino with its transports (runs them in a
 * worker thread from files by path).
 * bullmq's optional `pg` and `@valkey/valkey-glide` are not installed and stay a guarded require.
 * The packages the server imports only when first needed (`import()`: the common-password list,
 * archiver, twilio, Vapi's SDK) stay too: node's own CommonJS interop gives them the named exports
 * the sources are written against (bundled, the password list's `dictionary` was undefined), and
 * a lazy import costs the start nothing either way.
 */
export const EXTERNAL = [
  '@node-rs/argon2',
  'sharp',
  'bufferutil',
  'utf-8-validate',
  'msgpackr-extract',
  '@electric-sql/pglite',
  'pino',
  'pino-pretty',
  'thread-stream',
  '@zxcvbn-ts/language-common',
  'archiver',
  'twilio',
  '@vapi-ai/server-sdk',
]

/**
 * Bundled CommonJS calls `require` (the externals, node's modules) and reads `__filename` or
 * `__dirname` (error stacks, optional files): an ES module has neither, so each output file
 * defines them for itself.
 */
const BANNER = [
  "import { createRequire as __bundleCreateRequire } from 'node:module'",
  "import { dirname as __bundleDirname } from 'node:path'",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url'",
  'const require = __bundleCreateRequire(import.meta.url)',
  'const __filename = __bundleFileURLToPath(import.meta.url)',
  'const __dirname = __bundleDirname(__filename)',
].join('\n')

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
    external: EXTERNAL,
    banner: { js: BANNER },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  })
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.startsWith('node_modules/'))
    .sort()
  // What the output still imports at run time (node's modules and EXTERNAL), for the tests.
  const imported = [
    ...new Set(
      Object.values(result.metafile.outputs)
        .flatMap((output) => output.imports)
        .filter((entry) => entry.external)
        .map((entry) => entry.path),
    ),
  ].sort()
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify({ inputs, external: EXTERNAL, imported }, null, 2) + '\n')
  return { inputs, imported }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now()
  const { inputs } = await buildServer(process.argv[2])
  console.log(`Built the server and the worker into dist/ (${inputs.length} files, ${Math.round(performance.now() - started)} ms).`)
}
