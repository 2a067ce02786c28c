import { useEffect } from 'react'

const APP_NAME = 'Momentum Coach'

/** Sets the browser tab title for the current screen ("Dashboard · Momentum Coach"). */
export function useDocumentTitle(title?: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME
  }, [title])
}
