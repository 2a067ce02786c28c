/** The account page's data requests: "Export my data" (a ZIP download) and "Delete my account". */
import { z } from 'zod'
import type { DeleteAccountBody } from '#common/account-data'
import { api, type DownloadedFile } from '#web/lib/api-client'

/** POST /api/account/export: the archive (429 with the wait within 10 minutes of the last one). */
export const exportMyData = () => api.download('POST', '/api/account/export')

/** POST /api/account/delete: 204, the session then ended (400 / 401 name the field). */
export const deleteMyAccount = (body: DeleteAccountBody) => api.post('/api/account/delete', body, z.undefined())

/** Hands a downloaded file to the browser's downloads (a link with `download`, clicked once). */
export function saveFile({ blob, fileName }: DownloadedFile, fallbackName: string): string {
  const name = fileName ?? fallbackName
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  // Revoked a while later: a browser may still be reading the blob when the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
  return name
}
