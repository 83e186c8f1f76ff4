import { describe, expect, it } from 'vitest'
import { timeRange } from './timeaxis'

describe('timeRange', () => {
  it('is at least an hour wide, ending at the last point, for points close together', () => {
    const [lo, hi] = timeRange(1000, 1000.5)
    expect(hi - lo).toBeCloseTo(3600 * 1.06)
    expect(lo).toBeLessThan(1000)
    expect(hi).toBeGreaterThan(1000.5)
    expect(hi - 1000.5).toBeLessThan(3600 * 0.05) // the points sit at the right, now
  })
  it('keeps a wide span as it is, with a little room', () => {
    const [lo, hi] = timeRange(0, 86400)
    expect(lo).toBeCloseTo(-86400 * 0.03)
    expect(hi).toBeCloseTo(86400 * 1.03)
  })
  it('handles a single point', () => {
    const [lo, hi] = timeRange(50, 50)
    expect(lo).toBeLessThan(50)
    expect(hi).toBeGreaterThan(50)
  })
})
