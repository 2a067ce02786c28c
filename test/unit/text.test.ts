import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isStorableText, text, TEXT_ERROR } from '#common/text'

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
