import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

const stored: { key: string; value: string }[] = []
vi.mock('../../../../wailsjs/go/desktop/Memory', () => ({
  Facts: vi.fn(async () => stored.map((f) => ({ ...f, source: 'the user (window)', updated: '', flagged: false }))),
  SearchFacts: vi.fn(async () => []),
  SetFact: vi.fn(async (key: string, value: string) => (stored.push({ key, value }), { key, value })),
  // What the backend says of a value that looks like a token.
  FactNote: vi.fn(async (key: string, value: string) => (value.startsWith('ghp_') ? `${key} looks like it holds a secret` : '')),
  DeleteFact: vi.fn(),
  ApproveFact: vi.fn(),
  Working: vi.fn(async () => []),
}))

import MemoryView from './MemoryView.svelte'

describe('MemoryView', () => {
  it('stores a fact the user adds, and says so when it looks like a secret', async () => {
    render(MemoryView)
    const add = async (key: string, value: string) => {
      await fireEvent.input(screen.getByLabelText('Fact key'), { target: { value: key } })
      await fireEvent.input(screen.getByLabelText('Fact value'), { target: { value: value } })
      await fireEvent.click(screen.getByRole('button', { name: 'Add fact' }))
    }
    await add('car_plate', 'AB-123-CD')
    await vi.waitFor(() => expect(screen.getAllByTestId('fact-row')).toHaveLength(1))
    expect(screen.queryByTestId('fact-note')).toBeNull()
    await add('gh', 'ghp_' + 'aB3'.repeat(12)) // built here: the repository holds no token (redact's TestFalsePositives)
    await vi.waitFor(() => expect(screen.getByTestId('fact-note').textContent).toContain('gh looks like it holds a secret'))
    await vi.waitFor(() => expect(screen.getAllByTestId('fact-row')).toHaveLength(2))
  })
})
