import { describe, expect, it } from 'vitest'
import { keptRateText } from '#common/commitments'
import { matchReviewed, openCommitmentsVariable, similarity } from '#server/services/commitments'

const asked = [
  { id: 'a', text: 'Walk 20 minutes before work on Tuesday and Thursday' },
  { id: 'b', text: 'Call Mom on Sunday' },
  { id: 'c', text: 'Write the budget for December' },
]

describe('the open commitments a call is given', () => {
  it('are numbered from 1, one a line; none is the empty string', () => {
    expect(openCommitmentsVariable(asked)).toBe('1. Walk 20 minutes before work on Tuesday and Thursday\n2. Call Mom on Sunday\n3. Write the budget for December')
    expect(openCommitmentsVariable([])).toBe('')
  })
})

describe("matching a report's review to the commitments the call was given", () => {
  it('takes the words when they clearly name one, whatever the number says', () => {
    expect(matchReviewed(asked, [{ number: 1, commitment: 'call mom on sunday', outcome: 'kept' }])).toEqual([{ id: 'b', outcome: 'kept' }])
    expect(matchReviewed(asked, [{ number: null, commitment: 'Write the December budget', outcome: 'missed' }])).toEqual([{ id: 'c', outcome: 'missed' }])
  })

  it('falls back to the number when the words name none, and ignores a number outside the list', () => {
    expect(matchReviewed(asked, [{ number: 2, commitment: 'the thing with the phone', outcome: 'kept' }])).toEqual([{ id: 'b', outcome: 'kept' }])
    expect(matchReviewed(asked, [{ number: 3, commitment: null, outcome: 'missed' }])).toEqual([{ id: 'c', outcome: 'missed' }])
    expect(matchReviewed(asked, [{ number: 4, commitment: null, outcome: 'kept' }])).toEqual([])
    expect(matchReviewed(asked, [{ number: null, commitment: 'Meditate daily', outcome: 'kept' }])).toEqual([])
    expect(matchReviewed([], [{ number: 1, commitment: 'Call Mom', outcome: 'kept' }])).toEqual([])
  })

  it('settles each commitment once, by the first verdict on it', () => {
    expect(
      matchReviewed(asked, [
        { number: 2, commitment: 'Call Mom on Sunday', outcome: 'kept' },
        { number: 2, commitment: null, outcome: 'missed' },
        { number: 1, commitment: null, outcome: 'missed' },
      ]),
    ).toEqual([
      { id: 'b', outcome: 'kept' },
      { id: 'a', outcome: 'missed' },
    ])
  })

  it('compares words, not letters: case, punctuation and order do not matter', () => {
    expect(similarity('Call Mom, on Sunday!', 'on sunday call mom')).toBe(1)
    expect(similarity('Call Mom', 'Write the budget')).toBe(0)
    expect(similarity('', 'Call Mom')).toBe(0)
  })
})

describe('the kept rate as the dashboard shows it', () => {
  it('is a whole percent with the counts, or a dash when nothing was settled', () => {
    expect(keptRateText({ days: 30, kept: 4, missed: 1, percent: 80 })).toEqual({ value: '80%', detail: '4 of 5 kept in the last 30 days' })
    expect(keptRateText({ days: 30, kept: 0, missed: 0, percent: null })).toEqual({ value: '—', detail: 'No commitments checked in the last 30 days' })
  })
})
