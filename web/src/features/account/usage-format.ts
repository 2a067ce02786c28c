import type { UsageAmount } from '#common/usage'

/**
 * The budget's seconds as the account page shows minutes: used rounded up and left rounded down,
 * so the two always add up to the limit and a call of a few seconds shows as a minute used.
 */
export function minutesOf(seconds: UsageAmount): UsageAmount {
  const limit = Math.floor(seconds.limit / 60)
  const left = Math.min(limit, Math.floor(seconds.left / 60))
  return { used: Math.min(limit, Math.ceil(seconds.used / 60)), limit, left }
}

/** "July 1": the day a budget comes back, on the person's calendar (their profile's zone). */
export const comesBackOn = (resetsAt: string, timeZone: string) => new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', timeZone }).format(new Date(resetsAt))

/** "1 minute", "12 minutes", "1,000 messages". */
export const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
