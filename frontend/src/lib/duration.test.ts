import { describe, expect, it } from 'vitest'
import { duration } from './duration'

describe('duration', () => {
  it.each([
    [0, '0 ms'],
    [42.4, '42 ms'],
    [999.4, '999 ms'],
    [999.6, '1.0 s'],
    [1234, '1.2 s'],
    [9949, '9.9 s'],
    [9950, '10 s'],
    [59_499, '59 s'],
    [59_500, '1 min'],
    [185_000, '3 min 5 s'],
    [3_600_000, '1 h'],
    [7_500_000, '2 h 5 min'],
    [-1, '—'],
    [Number.NaN, '—'],
  ])('%d ms', (ms, want) => {
    expect(duration(ms)).toBe(want)
  })
})
