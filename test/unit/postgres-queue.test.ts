import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/process'

/**
 * postgres.js keeps its connections in queues; when every connection is busy it shifts one off
 * the busy queue and then removes it again, and its `remove` searched the whole backing array,
 * which only ever grew while the pool stayed saturated (CPU grew with uptime under load).
 * `patches/postgres+3.4.9.patch` (applied by `patch-package` on install) searches only the live
 * part and compacts the array. These tests pin that the patch is applied and keeps the queue right.
 */
type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null }

const file = join(ROOT, 'node_modules/postgres/src/queue.js')
const { default: Queue } = (await import(pathToFileURL(file).href)) as { default: <T>(initial?: T[]) => Queue<T> }

describe('postgres.js connection queue (patched)', () => {
  it('is the patched queue', () => {
    const source = readFileSync(file, 'utf8')
    expect(source).toContain('xs.indexOf(x, index)')
    expect(source).toContain('xs = xs.slice(index)')
  })

  it('stays first-in first-out across compactions while it is never empty', () => {
    const queue = Queue<number>()
    const backlog = 10
    for (let i = 0; i < backlog; i++) queue.push(i)
    // The pool's steady state under load: one out, one in, the queue never drains.
    for (let i = backlog; i < 50_000; i++) {
      expect(queue.shift()).toBe(i - backlog)
      queue.push(i)
      expect(queue.length).toBe(backlog)
    }
    const rest: number[] = []
    while (queue.length > 0) rest.push(queue.shift()!)
    expect(rest).toEqual(Array.from({ length: backlog }, (_, i) => 50_000 - backlog + i))
  })

  it('removes live entries in place and ignores ones already shifted', () => {
    const queue = Queue<{ id: number }>()
    const items = Array.from({ length: 3000 }, (_, id) => ({ id }))
    for (const item of items) queue.push(item)
    for (let i = 0; i < 2000; i++) queue.shift()
    expect(queue.remove(items[5]!)).toBeNull() // shifted earlier: gone
    expect(queue.remove(items[2500]!)).toBe(items[2500])
    expect(queue.remove(items[2500]!)).toBeNull()
    expect(queue.length).toBe(999)
    const order: number[] = []
    while (queue.length > 0) order.push(queue.shift()!.id)
    expect(order).toEqual(items.slice(2000).filter((item) => item.id !== 2500).map((item) => item.id))
    // Empty again: it starts over cleanly.
    queue.push(items[0]!)
    expect(queue.shift()).toBe(items[0])
    expect(queue.length).toBe(0)
  })
})
