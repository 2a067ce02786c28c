import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { precompress } from '../scripts/web-build/precompress.mjs'
import { prerenderPages, writeBuildMarker } from '../scripts/web-build/prerender.mjs'

// Every path is resolved from this file, so the config works the same whether Vite is
// started from the repository root (`vite build --config web/vite.config.ts`) or from web/.
const webRoot = fileURLToPath(new URL('.', import.meta.url))
const fromWeb = (path: string) => fileURLToPath(new URL(path, import.meta.url))
// The server build of web/src/prerender.tsx: used by the build only, kept out of web/dist.
const prerenderOutDir = fromWeb('../.tmp/prerender')
// The form kit, one chunk: react-hook-form, the Radix primitives of the sign-in forms, our form controls (docs/decisions/076).
const FORM_KIT = /[\\/](node_modules[\\/](react-hook-form|@hookform[\\/]resolvers|@radix-ui[\\/](react-(tabs|roving-focus|collection|direction|presence|context|use-controllable-state|primitive|use-effect-event|use-callback-ref|id|use-layout-effect|checkbox|label|use-previous|use-size)|primitive))[\\/]|src[\\/]components[\\/]ui[\\/](input|label|checkbox|password-input|field|tabs)\.tsx$|src[\\/]lib[\\/]forms\.ts$)/

export default defineConfig({
  root: webRoot,
  define: {
    // What a prerendered page's footer says (components/app-shell.tsx).
    'import.meta.env.BUILD_YEAR': JSON.stringify(new Date().getFullYear()),
  },
  // `#web/…` is web/src (web/tsconfig.json's paths say the same to TypeScript).
  resolve: { alias: [{ find: /^#web\//, replacement: fromWeb('./src/') }] },
  // The app imports the isomorphic zod schemas from ../common; let the dev server read them.
  server: {
    fs: { allow: [fromWeb('..')] },
    proxy: {
      '/api': { target: 'http://127.0.0.1:3000', changeOrigin: false, ws: true },
    },
  },
  preview: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:3000', changeOrigin: false, ws: true },
    },
  },
  plugins: [
    // The router plugin must run before the React plugin (TanStack Router docs).
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: fromWeb('./src/routes'),
      generatedRouteTree: fromWeb('./src/routeTree.gen.ts'),
    }),
    react(),
    tailwindcss(),
  ],
  build: {
    outDir: fromWeb('./dist'),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // No modulepreload polyfill in the entry chunk (every route): it would run only once that chunk
    // has loaded, and only in browsers without <link rel="modulepreload"> (docs/decisions/067).
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  environments: {
    // The browser's: index.html (the app), and the script a prerendered page starts it with (src/boot.ts).
    client: {
      build: {
        rolldownOptions: {
          input: { index: fromWeb('./index.html'), boot: fromWeb('./src/boot.ts') },
          // One chunk for everything the app's entry imports, so a page starts few module fetches
          // (each costs the main thread; rolldown would otherwise make ~20 small shared chunks).
          output: {
            codeSplitting: {
              groups: [
                { name: 'app', tags: ['$initial'], test: (id) => !/[\\/](index\.html|src[\\/](main\.tsx|boot\.ts))$/.test(id) },
                { name: 'forms', test: FORM_KIT, includeDependenciesRecursively: false },
              ],
            },
          },
        },
      },
    },
    // The prerenderer (docs/decisions/052): src/prerender.tsx for Node, dependencies from node_modules.
    ssr: {
      build: {
        outDir: prerenderOutDir,
        emptyOutDir: true,
        manifest: false,
        copyPublicDir: false,
        rolldownOptions: { input: { prerender: fromWeb('./src/prerender.tsx') } },
      },
    },
  },
  // `vite build`: the browser's build, the prerenderer's, then the prerendered pages and the
  // compressed copies of everything (brotli and gzip), then the mark of a finished build.
  builder: {
    async buildApp(builder) {
      await builder.build(builder.environments.client!)
      await builder.build(builder.environments.ssr!)
      const pages = await prerenderPages({ webRoot, serverEntry: `${prerenderOutDir}/prerender.js` })
      precompress(fromWeb('./dist'))
      writeBuildMarker(webRoot, pages)
    },
  },
})
