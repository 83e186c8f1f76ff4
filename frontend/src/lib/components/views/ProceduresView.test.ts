import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))
const declined = {
  id: 'p1',
  trigger: 'shrink the holiday photos and zip them for email',
  triggers: ['shrink the holiday photos and zip them for email'],
  tools: ['fs.list', 'image.resize', 'fs.zip'],
  uses: 2,
  demerits: 0,
  status: 'active',
  missing_tools: [],
  sessions: [],
  examples: [],
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
})
