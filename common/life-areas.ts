import type { LifeArea } from './domain'

/**
 * The eight life areas' titles (spec 2 §2), the one list the goal wizard, the dashboard and the
 * landing page show. Plain TypeScript, so a screen can show them without loading zod.
 */
export const LIFE_AREA_TITLES = {
  faith: 'Faith',
  family: 'Family Relationships',
  fitness: 'Fitness & Health',
  finance: 'Finance',
  friends: 'Friends & Social Life',
  fun: 'Fun & Recreation',
  service: 'Service to Others',
  personal_development: 'Personal Development',
} as const satisfies Record<LifeArea, string>
