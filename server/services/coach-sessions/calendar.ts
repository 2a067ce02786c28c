/**
 * The calendar side of a 1-on-1 (docs/decisions/082): the iCalendar invitation each email carries
 * (RFC 5545/5546: METHOD:REQUEST to book or move, METHOD:CANCEL with STATUS:CANCELLED to cancel; one
 * UID per session for its whole life, SEQUENCE raised on every change so calendars take the newer),
 * and the 'Add to Google Calendar' / 'Add to Outlook' links.
 */
import { google, outlook } from 'calendar-link'
import { createEvent } from 'ics'

export type CalendarSession = {
  id: string
  startsAt: Date
  endsAt: Date
  sequence: number
  title: string
  description: string
  /** The video link, or where the call comes from. */
  location: string
  organizer: { name: string; email: string }
  attendee: { name: string; email: string }
}

/** The UID a session keeps in every calendar (the same for its request, its moves and its cancel). */
const calendarUid = (sessionId: string, host: string) => `coach-session-${sessionId}@${host}`

const utcArray = (date: Date): [number, number, number, number, number] => [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes()]

/** The .ics body (times in UTC, so every client places the same instant in its own zone). */
export function invitation(session: CalendarSession, method: 'REQUEST' | 'CANCEL', host: string): string {
  const { error, value } = createEvent({
    method,
    productId: 'momentum-coach/sessions',
    uid: calendarUid(session.id, host),
    sequence: session.sequence,
    start: utcArray(session.startsAt),
    startInputType: 'utc',
    startOutputType: 'utc',
    end: utcArray(session.endsAt),
    endInputType: 'utc',
    endOutputType: 'utc',
    title: session.title,
    description: session.description,
    location: session.location,
    status: method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED',
    organizer: session.organizer,
    attendees: [{ ...session.attendee, rsvp: false, partstat: 'ACCEPTED', role: 'REQ-PARTICIPANT' }],
  })
  if (error || !value) throw error ?? new Error('the invitation could not be written')
  return value
}

/** The links that add the session to a web calendar (for mail clients that ignore the attachment). */
export function calendarLinks(session: CalendarSession): { google: string; outlook: string } {
  const event = { title: session.title, description: session.description, location: session.location, start: session.startsAt.toISOString(), end: session.endsAt.toISOString() }
  return { google: google(event), outlook: outlook(event) }
}
