import { describe, expect, it } from 'vitest'
import { formatPrice } from '../../web/src/features/plans/format'

describe('formatPrice', () => {
  it('writes whole dollars as Intl does for en-US without cents', () => {
    const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 })
    for (const dollars of [0, 5, 50, 197, 497, 1000, 1200, 49999, 1234567]) {
      expect(formatPrice(dollars)).toBe(usd.format(dollars))
    }
  })
})
