import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)

/**
 * The voice gateway masks every frame it sends Vapi and unmasks every frame a browser sends: `ws`
 * does that with the bufferutil addon when it loads, and silently in JavaScript otherwise. A clean
 * install must load the native build (its prebuild), not bufferutil's JavaScript fallback.
 */
describe('ws masks frames natively', () => {
  it('loads the native bufferutil, the one ws resolves', () => {
    const native = require('bufferutil') as { mask: unknown }
    const fallback = require('bufferutil/fallback') as { mask: unknown }
    expect(native.mask).not.toBe(fallback.mask)
    expect(require.resolve('bufferutil', { paths: [dirname(require.resolve('ws'))] })).toBe(require.resolve('bufferutil'))
  })

  it('masks as RFC 6455 says (each byte XOR the key byte at its offset mod 4)', () => {
    const { mask, unmask } = require('bufferutil') as {
      mask(source: Buffer, key: Buffer, output: Buffer, offset: number, length: number): void
      unmask(buffer: Buffer, key: Buffer): void
    }
    const key = Buffer.from([0x37, 0xfa, 0x21, 0x3d])
    const source = Buffer.from(Array.from({ length: 640 }, (_, i) => (i * 7) & 255))
    const output = Buffer.alloc(646)
    mask(source, key, output, 6, 640)
    expect([...output.subarray(6)]).toEqual([...source].map((byte, i) => byte ^ key[i & 3]!))
    const back = Buffer.from(output.subarray(6))
    unmask(back, key)
    expect(back.equals(source)).toBe(true)
  })
})
