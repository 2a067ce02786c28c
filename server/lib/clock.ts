/** The time source every service uses, so tests can move time (sessions expire after 30 days). */
export type Clock = { now(): Date }
export const systemClock: Clock = { now: () => new Date() }
