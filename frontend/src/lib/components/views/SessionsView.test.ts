import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

const many = Array.from({ length: 450 }, (_, i) => ({
  id: `s${i}`,
  title: `session ${i}`,
  model: 'qwen3:4b',
  workspace: i === 2 ? '/' : `/home/u/project-${i % 3}`,
  created: '2026-12-01T10:00:00Z',
  updated: '2026-12-01T10:00:00Z',
  prompt_tokens: 10,
  completion_tokens: 5,
  outside: i === 1 ? 'https://x.example/notes' : undefined,
}))
// As the backend answers: the first limit sessions, and how many there are.
const stored = vi.hoisted(() => ({ all: [] as unknown[] }))
vi.mock('../../../../wailsjs/go/desktop/Sessions', () => ({
  List: vi.fn(async (limit: number) => ({ sessions: stored.all.slice(0, limit), total: stored.all.length })),
  Search: vi.fn(async (_q: string, limit: number) => ({ sessions: stored.all.slice(0, Math.min(3, limit)), total: 3 })),
  Rename: vi.fn(async (_id: string, title: string) => title.trim() + ' (kept)'),
}))
stored.all = many

import { List, Rename } from '../../../../wailsjs/go/desktop/Sessions'
import SessionsView from './SessionsView.svelte'

describe('SessionsView', () => {
  it('shows a long list 200 rows at a time, from the top again after a search', async () => {
    render(SessionsView, { onopen: vi.fn() })
    expect(await screen.findAllByTestId('session-row')).toHaveLength(200)
    // Only a page is read, not every session stored.
    expect(vi.mocked(List)).toHaveBeenLastCalledWith(200)
    // The one session that read a page says so, and what it read.
    const outside = screen.getAllByTestId('session-outside')
    expect(outside).toHaveLength(1)
    expect(outside[0].title).toContain('https://x.example/notes')
    expect(outside[0].parentElement!.textContent!.replace(/\s+/g, ' ')).toMatch(/ out · read from outside$/)
    // Each says the folder it worked in, by name, the path on hover.
    const folders = screen.getAllByTestId('session-folder')
    expect(folders.slice(0, 3).map((f) => `${f.textContent}|${f.title}`)).toEqual(['project-0|/home/u/project-0', 'project-1|/home/u/project-1', '/|/'])
    await fireEvent.click(screen.getByTestId('show-more'))
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(400))
    expect(vi.mocked(List)).toHaveBeenLastCalledWith(400)
    expect(screen.getByTestId('show-more').textContent).toBe('Show 50 more (50 not shown)')
    await fireEvent.click(screen.getByTestId('show-more'))
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(450))
    expect(screen.queryByTestId('show-more')).toBeNull()
    // A search lists its own results, and clearing it starts from the top.
    const box = screen.getByRole('searchbox', { name: 'Search sessions' })
    await fireEvent.input(box, { target: { value: 'session 1' } })
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(3), { timeout: 30_000 })
    await fireEvent.input(box, { target: { value: '' } })
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(200), { timeout: 30_000 })
  })

  it('follows runs that start or end, here or in a terminal, keeping its place', async () => {
    const view = render(SessionsView, { onopen: vi.fn(), changed: 0 })
    expect(await screen.findAllByTestId('session-row')).toHaveLength(200)
    await fireEvent.click(screen.getByTestId('show-more'))
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(400))
    const calls = vi.mocked(List).mock.calls.length
    const started = { ...many[0], id: 'new', title: 'a request from the terminal', updated: '2026-12-02T10:00:00Z' }
    stored.all = [started, ...many]
    await view.rerender({ onopen: vi.fn(), changed: 1 })
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')[0].textContent).toContain('a request from the terminal'), { timeout: 30_000 })
    expect(vi.mocked(List).mock.calls.length).toBe(calls + 1)
    // Still 400 shown: the list was read again, not started over.
    expect(screen.getAllByTestId('session-row')).toHaveLength(400)
    expect(screen.getByTestId('show-more').textContent).toBe('Show 51 more (51 not shown)')
  })

  it('renames a session in place: Enter keeps the name the backend kept, Escape leaves it as it was', async () => {
    stored.all = many.slice(0, 2).map((x) => ({ ...x }))
    render(SessionsView, { onopen: vi.fn() })
    const rows = await screen.findAllByTestId('session-row')
    await fireEvent.click(rows[0].querySelector('button[title^="Give the conversation a name"]')!)
    let field = screen.getByTestId('session-rename') as HTMLInputElement
    expect(field.value).toBe('session 0')
    expect(document.activeElement).toBe(field)
    await fireEvent.input(field, { target: { value: 'Release notes' } })
    await fireEvent.keyDown(field, { key: 'Enter' })
    await screen.findByText('Release notes (kept)')
    expect(vi.mocked(Rename)).toHaveBeenCalledWith('s0', 'Release notes')
    expect(screen.queryByTestId('session-rename')).toBeNull()
    vi.mocked(Rename).mockClear()
    await fireEvent.click(rows[1].querySelector('button[title^="Give the conversation a name"]')!)
    field = screen.getByTestId('session-rename') as HTMLInputElement
    await fireEvent.input(field, { target: { value: 'not this' } })
    await fireEvent.keyDown(field, { key: 'Escape' })
    expect(screen.queryByTestId('session-rename')).toBeNull()
    await fireEvent.blur(field)
    expect(vi.mocked(Rename)).not.toHaveBeenCalled()
    expect(screen.getByText('session 1')).toBeTruthy()
    stored.all = many
  })
})
