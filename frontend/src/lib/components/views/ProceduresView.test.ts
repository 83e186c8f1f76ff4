import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))
const declined = {
  id: 'p1',
  trigger: 'shrink the holiday photos and zip them for email',
  triggers: ['shrink the holiday photos and zip them for email'],
  tools: ['fs.list', 'image.resize', 'image.resize', 'image.resize', 'fs.zip'],
  uses: 2,
  demerits: 0,
  status: 'active',
  missing_tools: [],
  sessions: [],
  examples: ['{"path":"."}', '{"path":"a.jpg"}', '{"path":"b.jpg"}', '{"path":"c.jpg"}', '{"path":"photos.zip"}'],
  last_used: '2026-12-01T10:00:00Z',
  score: 0,
  declined: ['order a pizza with extra olives'],
}
const restore = vi.fn(async (_id: string) => ({ ...declined, declined: [] as string[] }))
vi.mock('../../../../wailsjs/go/desktop/Procedures', () => ({
  List: vi.fn(async () => [declined]),
  Search: vi.fn(async () => [declined]),
  Forget: vi.fn(),
  Restore: (id: string) => restore(id),
  Runs: vi.fn(async () => ({ learned: null, uses: [] })),
  Worth: vi.fn(async () => null),
}))

import ProceduresView from './ProceduresView.svelte'
import { Worth } from '../../../../wailsjs/go/desktop/Procedures'
import { ProceduresState } from '../../state/procedures.svelte'

describe('ProceduresView', () => {
  it('lists the requests a procedure is not offered for, and Restore offers it again', async () => {
    render(ProceduresView, { procedures: new ProceduresState(), selected: 'p1' })
    const list = await screen.findByTestId('declined')
    expect(list.textContent).toContain('order a pizza with extra olives')
    const detail = screen.getByRole('complementary', { name: 'Procedure detail' })
    const button = Array.from(detail.querySelectorAll('button')).find((b) => b.textContent === 'Restore')
    expect(button).toBeDefined()
    await fireEvent.click(button!)
    expect(restore).toHaveBeenCalledWith('p1')
    await vi.waitFor(() => expect(screen.queryByTestId('declined')).toBeNull())
  })

  it('shows no medians for a group without runs, rather than zeros', async () => {
    const none = { runs: 0, median_turns: 0, median_tool_calls: 0, median_malformed_calls: 0, median_wall_ms: 0, answered_share: 0 }
    const some = { runs: 4, median_turns: 4, median_tool_calls: 3, median_malformed_calls: 0, median_wall_ms: 1200, answered_share: 1 }
    vi.mocked(Worth).mockResolvedValue({ with_recall: none, without_recall: some, procedures: [] } as never)
    try {
      render(ProceduresView, { procedures: new ProceduresState(), selected: '' })
      const cells = (id: string) => Array.from(screen.getByTestId(id).querySelectorAll('td')).map((c) => c.textContent)
      await vi.waitFor(() => expect(cells('worth-with')).toEqual(['0', '–', '–', '–', '–', '–']))
      expect(cells('worth-without')).toEqual(['4', '4', '3', '0', '1.2 s', '100%'])
    } finally {
      vi.mocked(Worth).mockResolvedValue(null as never)
    }
  })

  // Calls of one tool in a row are one step (lib/chain.ts), in the list and
  // in the diagram, so a chore over twenty files does not draw twenty.
  it('shows a chain by its shape', async () => {
    render(ProceduresView, { procedures: new ProceduresState(), selected: 'p1' })
    const row = await screen.findByTestId('procedure-row')
    expect(Array.from(row.querySelectorAll('.chip')).map((c) => c.textContent)).toEqual(['fs.list', 'image.resize ×3', 'fs.zip'])
    const diagram = screen.getByTestId('chain-diagram')
    expect(diagram.getAttribute('aria-label')).toBe('Chain: fs.list then image.resize 3 times then fs.zip')
    const nodes = screen.getAllByTestId('chain-step')
    expect(nodes).toHaveLength(3)
    expect(nodes[1].querySelector('text')?.textContent).toBe('image.resize ×3')
    expect(nodes[1].querySelector('title')?.textContent).toBe('image.resize, 3 calls in a row:\n{"path":"a.jpg"}\n{"path":"b.jpg"}\n{"path":"c.jpg"}')
    expect(nodes[2].querySelector('title')?.textContent).toBe('fs.zip: {"path":"photos.zip"}')
  })
})
