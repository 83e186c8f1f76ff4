import { describe, expect, it, vi } from 'vitest'

vi.mock('../../../wailsjs/go/desktop/Chat', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Approvals', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Procedures', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Models', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Sessions', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Settings', () => ({}))

import { Timeline, relativeTime } from './timeline.svelte'
import type { BusEvent } from '../backend/types'

const ev = (seq: number, session = 's'): BusEvent => ({ seq, session, type: 'agent:token', time: `2026-11-30T00:00:${String(seq).padStart(2, '0')}Z`, data: { text: String(seq) } })

describe('Timeline', () => {
  it('backfills a gap in seq from the store and drops duplicates', async () => {
    const backfill = vi.fn(async (_s: string, after: number) => [ev(after + 1), ev(after + 2), ev(after + 3)])
    const t = new Timeline(100, backfill)
    t.apply([ev(1), ev(2)])
    t.apply([ev(5), ev(2)])
    expect(backfill).toHaveBeenCalledWith('s', 2)
    await vi.waitFor(() => expect(t.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]))
  })

  it('takes an opened session’s run of streamed pieces as spanning its seqs, not as a gap', () => {
    const backfill = vi.fn(async () => [])
    const t = new Timeline(100, backfill)
    t.apply([ev(1), { ...ev(40), first_seq: 2 }, ev(41)])
    expect(backfill).not.toHaveBeenCalled()
    // A run that starts after a real gap is still healed, up to where it starts.
    t.apply([{ ...ev(60), first_seq: 50 }])
    expect(backfill).toHaveBeenCalledWith('s', 41)
  })

  it('keeps only the newest events beyond the cap', () => {
    const t = new Timeline(3, async () => [])
    t.apply([ev(1), ev(2), ev(3), ev(4)])
    expect(t.events.map((e) => e.seq)).toEqual([2, 3, 4])
  })

  it('remembers what it saw for the events it keeps, not for every event since it opened', () => {
    const t = new Timeline(100, async () => [])
    for (let i = 1; i <= 10_000; i += 10) t.apply(Array.from({ length: 10 }, (_, k) => ev(i + k)))
    expect(t.events).toHaveLength(100)
    expect(t.remembered).toBeLessThanOrEqual(210)
    t.apply([ev(9_999), ev(10_001)]) // a duplicate of a kept event, and a new one
    expect(t.events.map((e) => e.seq).slice(-3)).toEqual([9_999, 10_000, 10_001])
  })

  it('says how long ago', () => {
    const now = Date.parse('2026-11-30T12:00:00Z')
    expect(relativeTime('2026-11-30T11:59:50Z', now)).toBe('10 s ago')
    expect(relativeTime('2026-11-30T11:55:00Z', now)).toBe('5 min ago')
    expect(relativeTime('2026-11-30T09:00:00Z', now)).toBe('3 h ago')
    expect(relativeTime('nonsense', now)).toBe('')
  })
})
