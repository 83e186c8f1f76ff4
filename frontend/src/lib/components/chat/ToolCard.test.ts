import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/svelte'
import ToolCard from './ToolCard.svelte'

const call = { name: 'fs.write', args: '{"path": "a.txt"}', output: '', error: '', durationMs: 0, done: false, denied: false }

describe('ToolCard', () => {
  it.each([
    [{}, 'running…'],
    [{ progress: '2 of 3' }, 'running: 2 of 3'],
    [{ asking: true }, 'waiting for your answer'],
    [{ done: true, durationMs: 12 }, 'done in 12 ms'],
    [{ done: true, denied: true, asking: true }, 'denied'],
    [{ done: true, error: 'interrupted: Shrimp was closed' }, 'interrupted'],
    [{ done: true, error: 'not run: the same call as c0 just before it in this reply' }, 'not run'],
    [{ done: true, error: 'exit status 1' }, 'failed'],
  ])('says the state of %o', (props, want) => {
    render(ToolCard, { ...call, ...props })
    expect(screen.getByTestId('tool-state').textContent).toBe(want)
  })
  it('says when a call gave what it had given before, once it is done', () => {
    const { unmount } = render(ToolCard, { ...call, done: true, durationMs: 5, repeated: true })
    expect(screen.getByTestId('tool-repeated').textContent).toBe('same as before')
    unmount()
    const again = render(ToolCard, { ...call, done: true, durationMs: 5, refetched: true })
    expect(screen.getByTestId('tool-repeated').textContent).toBe('again: left out to fit')
    again.unmount()
    render(ToolCard, { ...call, done: true, durationMs: 5 })
    expect(screen.queryByTestId('tool-repeated')).toBeNull()
  })
})
