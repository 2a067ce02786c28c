import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const serverOnly = ['#server/*', '**/server/**', '**/worker/**', 'drizzle-orm', 'drizzle-orm/*', 'postgres', '@electric-sql/*', 'ioredis', 'bullmq', 'fastify', '@fastify/*', 'stripe', '@vapi-ai/server-sdk', 'node:*', 'nodemailer', 'pino']

export default tseslint.config(
  { ignores: ['node_modules/', 'web/dist/', 'web/src/routeTree.gen.ts', '.tmp/', '.data/', 'migrations/', 'test-results/'] },
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
