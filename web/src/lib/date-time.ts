/** "Nov 24, 2026, 4:05 PM": when something happened (a sign-in, a consent), in the viewer's time zone. Built once: a formatter is costly to make. */
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' })

export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso))
