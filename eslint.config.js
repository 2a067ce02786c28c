import { readdirSync } from 'node:fs'
import js from '@eslint/js'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import importX from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * The server's domains: each is reached from outside its folder through its index.ts only. Every
 * folder under server/services is one, read at lint time (a new domain is never left off a list).
 */
const DOMAINS = readdirSync(new URL('./server/services/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

/**
 * The server's layers, lowest first: a folder may import its own layer and those below it, never
 * one above (lib < db < auth, integrations < services < jobs, container < plugins, routes, app).
 */
const layerZones = [
  {
    target: ['./server/lib', './server/db', './server/auth', './server/integrations'],
    from: ['./server/services', './server/jobs', './server/container.ts', './server/plugins', './server/routes', './server/app.ts', './server/index.ts'],
    message: 'lib, db, auth and integrations sit below the services: they must not import them (or anything above).',
  },
  {
    target: ['./server/lib', './server/db'],
    from: ['./server/auth', './server/integrations'],
    message: 'lib and db sit below auth and the vendor integrations.',
  },
  {
    target: './server/lib',
    from: './server/db',
    message: 'lib is the bottom layer.',
  },
  {
    target: './server/services',
    from: ['./server/jobs', './server/container.ts', './server/plugins', './server/routes', './server/app.ts', './server/index.ts'],
    message: 'Services are framework-free: they must not import jobs, the container, plugins, routes or the app.',
  },
  {
    target: ['./server/jobs', './server/container.ts'],
    from: ['./server/plugins', './server/routes', './server/app.ts', './server/index.ts'],
    message: 'Jobs and the container are shared with the worker: no HTTP code.',
  },
  {
    target: './worker',
    from: ['./server/plugins', './server/routes', './server/app.ts', './server/index.ts', './web'],
    message: 'The worker reuses the services through createServices, never routes, plugins or the web app.',
  },
  {
    target: './common',
    from: ['./server', './worker', './web', './test'],
    message: 'common/ is isomorphic: zod and its own files only.',
  },
  // A domain's files are private to it: from outside, import its index.ts (`#server/services/<domain>`).
  ...DOMAINS.map((domain) => ({
    target: ['./server/*.ts', './server/!(services)/**/*', `./server/services/!(${domain})/**/*`, './worker/**/*', './test/**/*', './bench/**/*', './scripts/**/*'],
    from: `./server/services/${domain}`,
    except: ['./index.ts'],
    message: `Import the ${domain} domain through its public face, #server/services/${domain}.`,
  })),
]

const serverOnly = ['#server/*', '**/server/**', '**/worker/**', 'drizzle-orm', 'drizzle-orm/*', 'postgres', '@electric-sql/*', 'ioredis', 'bullmq', 'fastify', '@fastify/*', 'stripe', '@vapi-ai/server-sdk', 'node:*', 'nodemailer', 'pino']

/** `z.string(...)`: the contract's strings use `text()` from common/text.ts instead. */
const NO_BARE_STRING = "CallExpression[callee.object.name='z'][callee.property.name='string']"
const NO_BARE_STRING_MESSAGE = "Use text() from '#common/text' (refuses NUL and lone surrogates) instead of z.string()."

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'web/dist/', 'web/src/routeTree.gen.ts', '.tmp/', '.data/', 'migrations/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // The browser bundle: nothing server-only may reach it; it shares only common/.
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { patterns: [{ group: serverOnly, message: 'Server code must not reach the web bundle; share through common/.' }] }],
    },
  },
  {
    // Isomorphic: zod and plain TypeScript only.
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$|\\./)', message: 'common/ may import only zod and its own files.' }] }],
    },
  },
  {
    // The worker reuses services, db, jobs and integrations, never HTTP routes or plugins.
    files: ['worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['#server/routes/*', '#server/plugins/*', '#server/app', '**/server/routes/**', '**/server/plugins/**', '**/server/app', '**/web/**'], message: 'The worker must not import routes, plugins or the web app.' }] }],
    },
  },
  {
    // Routes only read app.services; a decorator belongs in a plugin (the composition root builds the services).
    files: ['server/routes/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name=/^decorate/]", message: 'Routes do not decorate: services come from createServices, decorators from plugins.' },
        { selector: NO_BARE_STRING, message: NO_BARE_STRING_MESSAGE },
      ],
    },
  },
  {
    // Every string of the HTTP contract refuses what PostgreSQL cannot store (NUL, lone surrogates).
    files: ['common/**/*.ts'],
    ignores: ['common/text.ts'],
    rules: { 'no-restricted-syntax': ['error', { selector: NO_BARE_STRING, message: NO_BARE_STRING_MESSAGE }] },
  },
  {
    // Import boundaries: no cycles anywhere, and the server's layers and domain faces.
    files: ['server/**/*.ts', 'worker/**/*.ts', 'common/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
    },
  },
  {
    // The web app: no import cycles either (type-only ones included); `#web/…` resolves through web/tsconfig.json.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['web/tsconfig.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Playwright fixtures take their dependencies as a destructured (sometimes empty) object.
    files: ['test/e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/web/**', '**/worker/**', '**/test/**'], message: 'The server must not import the web app, the worker or tests.' }] }],
    },
  },
)
