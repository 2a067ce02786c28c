/**
 * Chat benchmark: time to the first streamed token of a reply through the server
 * (POST /api/conversations/:id/messages, text/event-stream) against the fake Vapi's own first-token
 * time (POST /chat with stream: true, asked directly), alternating the two in the same run.
 * What the server adds at p50 (session, paid check, storing the message, reading the goals,
 * the Vapi adapter, the SSE relay) is the figure; the goal is at most 5 ms.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FakeVapi } from '../test/fakes/vapi'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = 3
/** Sends per round and user: below the chat's 20-a-minute limit per user. */
const PER_ROUND = 15
const GOAL_EXTRA_MS = 5

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Milliseconds from sending the request to the first chunk that holds `marker`; then reads to the end. */
async function firstToken(url: string, init: RequestInit, marker: string): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, init)
  if (!response.ok || !response.body) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  const decoder = new TextDecoder()
  let seen = ''
  let at: number | undefined
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (at === undefined) {
      seen += decoder.decode(chunk, { stream: true })
      if (seen.includes(marker)) at = performance.now() - started
    }
  }
  if (at === undefined) throw new Error(`${url}: no ${marker} in the stream:\n${seen.slice(0, 500)}`)
  return at
}

export async function chatFirstToken(databaseUrl: string | undefined): Promise<boolean> {
  const fake = await FakeVapi.start()
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const dataDir = mkdtempSync(join(tmpdir(), 'mc-bench-chat-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: base,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      VAPI_API_KEY: fake.apiKey,
      VAPI_ASSISTANT_ID: 'asst_bench',
      VAPI_API_URL: fake.url,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null) throw new Error('the chat bench server exited')
      if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break
      if (tries > 600) throw new Error('the chat bench server did not start')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }

    let ip = 0
    const headers = (cookie?: string) => ({
      'content-type': 'application/json',
      origin: base,
      'x-forwarded-for': `10.77.${Math.floor(++ip / 250)}.${ip % 250}`,
      ...(cookie ? { cookie } : {}),
    })
    /** A paid user with one conversation (a fresh one per round keeps under the per-user send limit). */
    const newSender = async (n: number) => {
      const password = 'bench-harbor-lantern-velvet'
      const signup = await fetch(`${base}/api/auth/signup`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({
          fullName: 'Bench Chatter',
          email: `bench-chat-${process.pid}-${n}@example.com`,
          phoneNumber: '2025234567',
          password,
          confirmPassword: password,
          communicationConsent: true,
          termsAccepted: true,
        }),
      })
      if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${await signup.text()}`)
      const cookie = signup.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('session='))!
      const paid = await fetch(`${base}/api/billing/testing-activation`, { method: 'POST', headers: headers(cookie), body: JSON.stringify({ plan: 'basic' }) })
      if (paid.status !== 200) throw new Error(`testing activation: ${paid.status}`)
      const created = await fetch(`${base}/api/conversations`, { method: 'POST', headers: headers(cookie), body: '{}' })
      if (created.status !== 201) throw new Error(`conversation: ${created.status}`)
      const { id } = (await created.json()) as { id: string }
      return { cookie, id }
    }

    const viaServer = (sender: { cookie: string; id: string }, i: number) =>
      firstToken(
        `${base}/api/conversations/${sender.id}/messages`,
        { method: 'POST', headers: { ...headers(sender.cookie), accept: 'text/event-stream' }, body: JSON.stringify({ text: `How do I keep going on day ${i}?` }) },
        'event: delta',
      )
    // The same request the server makes: a chained chat with the user's variable values.
    const direct = (i: number, previousChatId: string | undefined) =>
      firstToken(
        `${fake.url}/chat`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${fake.apiKey}` },
          body: JSON.stringify({
            assistantId: 'asst_bench',
            input: `How do I keep going on day ${i}?`,
            ...(previousChatId ? { previousChatId } : {}),
            stream: true,
            assistantOverrides: { variableValues: { firstName: 'Bench', goalsSummary: 'No goals set yet.', timestamp: new Date().toISOString() } },
          }),
        },
        'data:',
      )

    const warm = await newSender(0)
    for (let i = 0; i < 5; i++) {
      await viaServer(warm, i)
      await direct(i, undefined)
    }

    const server: number[] = []
    const fakeOwn: number[] = []
    let lastDirect: string | undefined
    for (let round = 1; round <= ROUNDS; round++) {
      const sender = await newSender(round)
      for (let i = 0; i < PER_ROUND; i++) {
        fakeOwn.push(await direct(i, lastDirect))
        lastDirect = [...fake.chats.values()].at(-1)?.id
        server.push(await viaServer(sender, i))
      }
      console.log(`  round ${round}: fake p50 ${median(fakeOwn.slice(-PER_ROUND)).toFixed(2)} ms, through the server p50 ${median(server.slice(-PER_ROUND)).toFixed(2)} ms`)
    }
    const serverP50 = median(server)
    const fakeP50 = median(fakeOwn)
    const extra = serverP50 - fakeP50
    console.log(
      `first streamed token (${server.length} replies each): through the server p50 ${serverP50.toFixed(2)} ms, the fake's own p50 ${fakeP50.toFixed(2)} ms, ` +
        `ratio ${(serverP50 / fakeP50).toFixed(2)}, the server adds ${extra.toFixed(2)} ms (goal <= ${GOAL_EXTRA_MS} ms) ${extra <= GOAL_EXTRA_MS ? 'OK' : 'BELOW GOAL'}`,
    )
    return extra <= GOAL_EXTRA_MS
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    await fake.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
