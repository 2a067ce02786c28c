/**
 * The weekly report's email: its figures in plain text and HTML, a link to the report in the app,
 * and the one-click unsubscribe of RFC 8058 (List-Unsubscribe with the HTTPS URL the server
 * honours on POST, List-Unsubscribe-Post) plus a visible link to the app's /unsubscribe page.
 */
import { LIFE_AREA_TITLES } from '#common/life-areas'
import { moodText, scoreChangeText, weekLabel, type WeeklyReportContent } from '#common/reports'
import type { OutgoingMail } from '#server/integrations/mailer'

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** The report's figures as lines of text (the email's and the text's). */
function reportLines(content: WeeklyReportContent): { label: string; value: string }[] {
  const { calls, commitments } = content
  const areas = content.areasDiscussed.length > 0 ? content.areasDiscussed.map((item) => `${LIFE_AREA_TITLES[item.area]} (${item.calls})`).join(', ') : 'None this week'
  return [
    { label: 'Calls', value: `${calls.completed} completed, ${calls.missed} missed, ${plural(calls.minutesTalked, 'minute')} talked` },
    { label: 'Life areas discussed', value: areas },
    { label: 'Commitments', value: `${commitments.kept} kept, ${commitments.missed} missed, ${commitments.made} made this week, ${commitments.open} open` },
    { label: 'Mood', value: moodText(content.mood) },
  ]
}

type ReportEmailInput = {
  to: string
  firstName: string
  weekEnding: string
  content: WeeklyReportContent
  /** APP_URL/reports/<week>. */
  reportUrl: string
  /** The one-click URL (POST) for List-Unsubscribe: APP_URL/api/reports/unsubscribe?token=… */
  oneClickUrl: string
  /** The app's page that asks before unsubscribing: APP_URL/unsubscribe#token=… */
  unsubscribePageUrl: string
}

export function reportEmail(input: ReportEmailInput): OutgoingMail {
  const label = weekLabel(input.weekEnding)
  const lines = reportLines(input.content)
  const scores = input.content.scores.map((score) => ({ label: LIFE_AREA_TITLES[score.area], value: scoreChangeText(score) }))
  const greeting = input.firstName ? `Hi ${input.firstName},` : 'Hi,'
  const intro = `Here is your week with Momentum Coach (${label}).`
  const footer = 'You get this email every Sunday evening because you have a Momentum Coach plan.'
  const text = [
    greeting,
    '',
    intro,
    '',
    ...lines.map((line) => `${line.label}: ${line.value}`),
    '',
    'Your life areas against the week before:',
    ...scores.map((score) => `  ${score.label}: ${score.value}`),
    '',
    `See your full report: ${input.reportUrl}`,
    '',
    footer,
    `Unsubscribe from weekly report emails: ${input.unsubscribePageUrl}`,
    '',
    '— Momentum Coach',
  ].join('\n')
  const row = (cells: { label: string; value: string }) =>
    `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;font-weight:600">${escapeHtml(cells.label)}</th><td style="padding:4px 0">${escapeHtml(cells.value)}</td></tr>`
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#111827;line-height:1.5">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(intro)}</p>
<table role="presentation" style="border-collapse:collapse">${lines.map(row).join('')}</table>
<h2 style="font-size:16px;margin-top:20px">Your life areas against the week before</h2>
<table role="presentation" style="border-collapse:collapse">${scores.map(row).join('')}</table>
<p><a href="${escapeHtml(input.reportUrl)}" style="display:inline-block;background:#3730a3;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">See your full report</a></p>
<p style="font-size:13px;color:#4b5563">${escapeHtml(footer)} <a href="${escapeHtml(input.unsubscribePageUrl)}" style="color:#4b5563">Unsubscribe from weekly report emails</a></p>
<p>— <strong style="color:#3730a3">Momentum</strong> <strong style="color:#b45309">Coach</strong></p>
</body></html>`
  return {
    kind: 'weekly_report',
    to: input.to,
    subject: `Your Momentum Coach week: ${label}`,
    text,
    html,
    link: input.reportUrl,
    headers: {
      'List-Unsubscribe': `<${input.oneClickUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}

/**
 * The weekly report's text (the texts service adds the brand name and, when due, the opt-out
 * footer): GSM-7 characters only (a hyphen, not the en dash), so it stays in 160-character segments.
 */
export function reportText(input: { weekEnding: string; content: WeeklyReportContent; reportUrl: string }): string {
  const { calls, commitments } = input.content
  return `Your week (${weekLabel(input.weekEnding).replace('–', '-')}): ${plural(calls.completed, 'call')}, ${plural(calls.minutesTalked, 'minute')} talked, ${plural(commitments.kept, 'commitment')} kept. Your report: ${input.reportUrl}`
}
