import { createContext, useContext, useEffect } from 'react'

const APP_NAME = 'Momentum Coach'

/**
 * While a page is prerendered at build time (prerender.tsx), where effects do not run: told the
 * title the page asks for, which the build writes into the page's <title>.
 */
export const PrerenderTitleContext = createContext<((title: string) => void) | null>(null)

/** Sets the browser tab title for the current screen ("Dashboard · Momentum Coach"). */
export function useDocumentTitle(title?: string): void {
  const full = title ? `${title} · ${APP_NAME}` : APP_NAME
  useContext(PrerenderTitleContext)?.(full)
  useEffect(() => {
    document.title = full
  }, [full])
}
