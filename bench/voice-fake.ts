/**
 * The Vapi fake in a process of its own, for the voice benchmarks (bench/voice.ts): its WebSocket
 * calls echo every audio frame straight back (no speech detection, no spoken replies), a call's
 * socket needs the Bearer key (as Vapi's does), and any number of calls may be live at once. Prints
 * one JSON line (`{"url", "apiKey"}`) when it listens; SIGTERM closes it.
 *
 * Its own process, so that the load generator (the bench) and the fake do not share an event loop:
 * a frame's time through the gateway and its time straight to the fake are then measured the same
 * way, against the same fake.
 */
import { FakeVapi } from '../test/fakes/vapi'

const fake = await FakeVapi.start({
  apiKey: process.env.BENCH_VOICE_FAKE_KEY || undefined,
  concurrencyLimit: 1_000_000,
  transport: { echo: true, requireBearer: true },
})
process.stdout.write(`${JSON.stringify({ url: fake.url, apiKey: fake.apiKey })}\n`)

process.once('SIGTERM', () => {
  void fake.close().finally(() => process.exit(0))
})
