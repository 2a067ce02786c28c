import { describe, expect, it } from 'vitest'
import { AudioPump } from '#server/services/voice'

/** A socket whose writes complete only when the test says so. */
function heldSocket() {
  const pending: Array<{ frame: Buffer; done: () => void }> = []
  const written: Buffer[] = []
  return {
    written,
    sink: {
      send(frame: Buffer, done: () => void) {
        pending.push({ frame, done })
      },
      buffered: () => pending.reduce((sum, entry) => sum + entry.frame.length, 0),
    },
    /** The socket writes everything it holds. */
    flush() {
      for (const entry of pending.splice(0)) {
        written.push(entry.frame)
        entry.done()
      }
    },
  }
}

const frame = (n: number) => Buffer.alloc(10, n)

describe('audio toward a socket that falls behind', () => {
  it('sends at once under the high-water mark, queues above it, and drops the OLDEST queued frames', () => {
    const socket = heldSocket()
    const pump = new AudioPump(socket.sink, { highWaterBytes: () => 20, maxQueuedBytes: () => 30 })
    for (let n = 1; n <= 8; n++) pump.push(frame(n))
    // Frames 1 and 2 went out (20 bytes unsent); 3..8 wanted the queue of 30 bytes: 3, 4 and 5 dropped.
    expect(pump.sent).toBe(2)
    expect(pump.dropped).toBe(3)
    expect(pump.queuedBytes).toBe(30)
    socket.flush()
    socket.flush()
    socket.flush()
    expect(socket.written.map((b) => b[0])).toEqual([1, 2, 6, 7, 8])
    expect(pump.queuedBytes).toBe(0)
  })

  it('tells `onDrop` of each frame as it is dropped (the gateway counts them live)', () => {
    const socket = heldSocket()
    let told = 0
    const pump = new AudioPump(socket.sink, { highWaterBytes: () => 10, maxQueuedBytes: () => 20, onDrop: () => told++ })
    for (let n = 1; n <= 3; n++) pump.push(frame(n))
    expect(told).toBe(0)
    pump.push(frame(4))
    expect(told).toBe(1)
    pump.push(frame(5))
    expect([told, pump.dropped]).toEqual([2, 2])
    // Cleared frames (an interruption) are not drops.
    pump.clear()
    expect(told).toBe(2)
  })

  it('drops what waits when cleared (an interruption), and nothing after it is closed', () => {
    const socket = heldSocket()
    const pump = new AudioPump(socket.sink, { highWaterBytes: () => 10, maxQueuedBytes: () => 100 })
    for (let n = 1; n <= 4; n++) pump.push(frame(n))
    expect(pump.clear()).toBe(3)
    socket.flush()
    expect(socket.written.map((b) => b[0])).toEqual([1])
    pump.close()
    pump.push(frame(9))
    socket.flush()
    expect(socket.written.map((b) => b[0])).toEqual([1])
  })
})
