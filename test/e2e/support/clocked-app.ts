import type { FakeCall, StepInfo } from '../../fakes/vapi'
import { freePort } from '../../helpers/process'
import { spawnAppServer, type AppServer } from './app-server'

export type ClockedAppServer = AppServer & {
  /** The server's test clock. */
  now(): Promise<Date>
  /** Moves the server's test clock to `to`; resolves once what came due has run (jobs, the fake's webhooks). */
  advanceTo(to: Date): Promise<Date>
  /** The phone calls the Vapi fake received, oldest first. */
  vapiCalls(): Promise<FakeCall[]>
  /** Holds every phone call the fake plays before its step `before` (e.g. 'status-update:ended': it stays in progress). */
  holdCalls(before: string): Promise<void>
  /** Resolves with the first call held before `before`. */
  callHeld(before: string): Promise<StepInfo>
  /** Lets the calls held before `before` go on (to the next hold); resolves once what followed has run. */
  releaseCalls(before: string): Promise<void>
  /** The next chat whose input starts with `inputStartsWith` gets `content` as the assistant's reply (FakeVapi.scriptChatReply). */
  scriptChatReply(inputStartsWith: string, content: string): Promise<void>
}

/**
 * The production app on a test clock, with the Vapi fake on the same clock in its process
 * (test/e2e/support/clocked-server.ts), and the client of its control port. Time on that server
 * moves only when the spec calls `advanceTo`; nothing waits for real time.
 */
export async function startClockedAppServer(options: { start: Date; env?: Record<string, string>; dataDir?: string }): Promise<ClockedAppServer> {
  const controlUrl = `http://127.0.0.1:${await freePort()}`
  const server = await spawnAppServer(
    'test/e2e/support/clocked-server.ts',
    { ...options.env, CLOCK_START: options.start.toISOString(), CONTROL_PORT: new URL(controlUrl).port },
    { dataDir: options.dataDir },
  )

  async function control<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${controlUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
    if (!response.ok) throw new Error(`clocked server control ${method} ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as T
  }

  return {
    ...server,
    now: async () => new Date((await control<{ now: string }>('GET', '/now')).now),
    advanceTo: async (to) => new Date((await control<{ now: string }>('POST', '/advance', { to: to.toISOString() })).now),
    vapiCalls: async () => (await control<{ calls: FakeCall[] }>('GET', '/vapi/calls')).calls,
    holdCalls: async (before) => void (await control('POST', '/vapi/hold', { before })),
    callHeld: async (before) => (await control<{ step: StepInfo }>('POST', '/vapi/hold/reached', { before })).step,
    releaseCalls: async (before) => void (await control('POST', '/vapi/release', { before })),
    scriptChatReply: async (inputStartsWith, content) => void (await control('POST', '/vapi/chat-replies', { inputStartsWith, content })),
  }
}
