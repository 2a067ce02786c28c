/** The billing query keys (defined in api.ts) at the path test/unit/subscription-check.test.ts imports. */
export { billingKeys } from './api'
