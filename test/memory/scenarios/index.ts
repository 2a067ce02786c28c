import type { Scenario } from '../run'
import { budget } from './budget'
import { care } from './care'
import { changes } from './changes'
import { crossChannel } from './cross-channel'
import { deletion } from './deletion'

/** Every scripted scenario of the memory evaluation (issue 37). */
export const SCENARIOS: readonly Scenario[] = [...crossChannel, ...changes, ...deletion, ...care, ...budget]
