import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Every path is resolved from this file, so the config works the same whether Vite is
// started from the repository root (`vite build --config web/vite.config.ts`) or from web/.
const webRoot = fileURLToPath(new URL('.', import.meta.url))
const fromWeb = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  root: webRoot,
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
    sourcemap: false,
  },
})
