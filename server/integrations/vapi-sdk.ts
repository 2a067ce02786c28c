/**
 * Vapi's SDK (@vapi-ai/server-sdk, some 1,300 modules) is loaded when the Vapi client is made
 * (./vapi-client), so a server or worker without Vapi never loads it (docs/decisions/066). Until
 * it is loaded no error can be one of its errors: they are recognised through the loaded module.
 */
import type * as Sdk from '@vapi-ai/server-sdk'
import type { VapiError, VapiTimeoutError } from '@vapi-ai/server-sdk'

type VapiSdk = typeof Sdk

let sdk: VapiSdk | undefined
let loading: Promise<VapiSdk> | undefined

/** The SDK, loaded once. */
export function loadVapiSdk(): Promise<VapiSdk> {
  loading ??= import('@vapi-ai/server-sdk').then((module) => (sdk = module))
  return loading
}

export const isVapiError = (error: unknown): error is VapiError => sdk !== undefined && error instanceof sdk.VapiError
export const isVapiTimeoutError = (error: unknown): error is VapiTimeoutError => sdk !== undefined && error instanceof sdk.VapiTimeoutError
