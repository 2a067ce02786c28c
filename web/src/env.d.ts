/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The year the app was built in (web/vite.config.ts): what a prerendered page's footer says. */
  readonly BUILD_YEAR: number
}
