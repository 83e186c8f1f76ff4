import { describe, expect, it } from 'vitest'
import { counted } from './plural'

describe('counted', () => {
  it.each([
    [0, 'use', undefined, '0 uses'],
    [1, 'use', undefined, '1 use'],
    [2, 'demerit', undefined, '2 demerits'],
    [1, 'turn', undefined, '1 turn'],
    [3, 'query', 'queries', '3 queries'],
  ])('%i %s', (n, singular, plural, want) => {
    expect(counted(n, singular, plural)).toBe(want)
  })
})
