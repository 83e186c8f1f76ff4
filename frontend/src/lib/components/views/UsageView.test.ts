import { describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/svelte'

const summary = vi.hoisted(() => ({
  value: {
    chart: { time: [] as number[], in: [] as number[], out: [] as number[] },
    recent: [] as unknown[],
    models: [] as unknown[],
  },
}))
vi.mock('../../../../wailsjs/go/desktop/Sessions', () => ({ Usage: vi.fn(async () => summary.value) }))

import UsageView from './UsageView.svelte'

const session = (i: number) => ({ id: `s${i}`, title: `request ${i}`, model: 'qwen3:4b', workspace: '/w', created: '', updated: '', prompt_tokens: 1000 * i, completion_tokens: 10 * i, eval_ms: 1000 })

describe('UsageView', () => {
  it('says so before the first request', async () => {
    render(UsageView)
    expect(await screen.findByText('No usage yet')).toBeTruthy()
  })

  it('lists the latest sessions and the models from the summary, whatever the chart holds', async () => {
    summary.value = {
      chart: { time: [1764583200, 1764586800, 1764590400], in: [1000, 2000, 3000], out: [10, 20, 30] },
      recent: [session(3), session(2)],
      models: [{ model: 'qwen3:4b', sessions: 3, prompt_tokens: 6000, completion_tokens: 60, eval_ms: 3000 }],
    }
    render(UsageView)
    const rows = await screen.findAllByTestId('usage-session')
    const cells = rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent))
    expect(cells).toEqual([
      ['request 3', 'qwen3:4b', '3,000', '30', '30.0'],
      ['request 2', 'qwen3:4b', '2,000', '20', '20.0'],
    ])
    expect(screen.getAllByTestId('usage-model')[0].textContent).toContain('6,000')
    expect(screen.queryByText('No usage yet')).toBeNull()
  })
})
