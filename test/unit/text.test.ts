import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isStorableText, storableText, text, TEXT_ERROR, truncateText } from '#common/text'
import { isUuid } from '#common/uuid'

describe('isStorableText', () => {
  it('accepts any well-formed text, emoji and other astral characters included', () => {
    for (const value of ['', 'plain', 'Ünïcödé', '😀 goals', '\u{1F600}\u{10FFFF}', 'tab\tnew\nline']) expect(isStorableText(value), value).toBe(true)
  })

  it('refuses a NUL character and unpaired surrogates, wherever they are', () => {
    for (const value of ['\u0000', 'a\u0000b', '\uD800', 'x\uD83D', '\uDE00y', 'ok\uDE00\uD83D', '😀\uD800']) {
      expect(isStorableText(value), JSON.stringify(value)).toBe(false)
    }
  })
})

describe('storableText', () => {
  it('removes every NUL character and lone surrogate and keeps the rest, surrogate pairs included', () => {
    expect(storableText('a\u0000b\uD800c')).toBe('abc')
    expect(storableText('\uDE00😀\u0000\uD83D x\u0000')).toBe('😀 x')
    for (const value of ['', 'plain', '😀 goals', '\u{10FFFF}']) expect(storableText(value)).toBe(value)
    for (const value of ['\u0000', 'x\uD83D', '😀\uD800', 'ok\uDE00\uD83D']) expect(isStorableText(storableText(value)), JSON.stringify(value)).toBe(true)
  })
})

describe('truncateText', () => {
  it('keeps a string within the limit as it is, and never cuts a surrogate pair in half', () => {
    expect(truncateText('abc', 3)).toBe('abc')
    expect(truncateText('abcd', 3)).toBe('abc')
    expect(truncateText('ab😀', 3)).toBe('ab')
    expect(truncateText('a😀b', 3)).toBe('a😀')
  })
})

describe('isUuid', () => {
  it('takes a UUID of any version in either case, and nothing else', () => {
    for (const value of ['2b1f3c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f', '2B1F3C1E-8D4A-4F6B-9C2D-1A2B3C4D5E6F', '00000000-0000-0000-0000-000000000000']) expect(isUuid(value), value).toBe(true)
    for (const value of ['', 'not-a-uuid', '2b1f3c1e8d4a4f6b9c2d1a2b3c4d5e6f', '2b1f3c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f0', ' 2b1f3c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f', 'g b1f3c1e-8d4a-4f6b-9c2d-1a2b3c4d5e6f']) {
      expect(isUuid(value), value).toBe(false)
    }
  })
})

describe('text()', () => {
  it('names the field and stops before the other rules', () => {
    const schema = z.object({ title: text().trim().min(1, 'Title is required') })
    const result = schema.safeParse({ title: '\u0000' })
    expect(result.success).toBe(false)
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['title'], message: TEXT_ERROR })])
  })

  it('keeps the other rules for storable text', () => {
    const schema = text({ error: 'Title must be text' }).trim().min(1, 'Title is required').max(5, 'Too long')
    expect(schema.safeParse('  hi  ')).toEqual({ success: true, data: 'hi' })
    expect(schema.safeParse('   ').error?.issues[0]?.message).toBe('Title is required')
    expect(schema.safeParse(3).error?.issues[0]?.message).toBe('Title must be text')
  })
})
