import { describe, expect, it, vi } from 'vitest'

vi.mock('../../../wailsjs/go/desktop/Procedures', () => ({
  List: vi.fn(async () => []),
  Search: vi.fn(async () => []),
  Forget: vi.fn(),
  Restore: vi.fn(),
  Runs: vi.fn(),
  Worth: vi.fn(async () => ({ with_recall: { runs: 2 }, without_recall: { runs: 5 }, saved_turns: { b: 6, c: -2 } })),
}))

import { ProceduresState } from './procedures.svelte'

const p = (id: string, uses: number, demerits: number) =>
  ({ id, trigger: id, triggers: [], tools: [], uses, demerits, status: 'active', missing_tools: [], sessions: [], examples: [], last_used: '2026-11-30T00:00:00Z', score: 0 }) as never

describe('ProceduresState', () => {
  it('sorts by use, by turns saved and by demerits, and reloads the summary when a run is measured', async () => {
    const s = new ProceduresState()
    s.items = [p('a', 1, 0), p('b', 3, 0), p('c', 2, 2)]
    s.sort = 'used'
    expect(s.shown.map((x) => x.id)).toEqual(['b', 'c', 'a'])
    await s.loadWorth()
    s.sort = 'saved'
    expect(s.shown.map((x) => x.id)).toEqual(['b', 'a', 'c'])
    s.sort = 'misleading'
    expect(s.shown.map((x) => x.id)).toEqual(['c'])
    const before = s.revision
    s.apply([{ seq: 1, session: 's', type: 'metrics:run-recorded', time: '', data: {} }])
    expect(s.revision).toBe(before + 1)
  })
})
