import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/go/desktop/Chat', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Approvals', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Procedures', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Models', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Sessions', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Settings', () => ({}))

import TimelineView from './TimelineView.svelte'
import { Timeline, summary } from '../../state/timeline.svelte'

describe('TimelineView', () => {
  it('filters by type and counts what it shows', async () => {
    const t = new Timeline(100, async () => [])
    t.apply([
      { seq: 0, session: '', type: 'ollama:status', time: '2026-11-30T00:00:00Z', data: { reachable: true } },
      { seq: 1, session: 's', type: 'agent:run-started', time: '2026-11-30T00:00:01Z', data: { text: 'go' } },
      { seq: 2, session: 's', type: 'approval:requested', time: '2026-11-30T00:00:02Z', data: { tool: 'fs.write' } },
    ])
    render(TimelineView, { timeline: t, session: 's' })
    expect(screen.getByTestId('timeline-count').textContent).toBe('3 of 3 events')
    await fireEvent.change(screen.getByLabelText('Filter by type'), { target: { value: 'approval' } })
    expect(screen.getByTestId('timeline-count').textContent).toBe('1 of 3 events')
  })
  it("shows the last run's measures, with the calls that told the model nothing new or were made again to fit the context", () => {
    const t = new Timeline(100, async () => [])
    const run = { turns: 7, tool_calls: 6, malformed_calls: 0, tokens_in: 900, tokens_out: 40, wall_ms: 3000, followed: null, recalled: [] }
    t.apply([{ seq: 1, session: 's', type: 'metrics:run-recorded', time: '2026-12-07T00:00:01Z', data: { ...run, repeated_calls: 4, refetched_calls: 2 } }])
    const { unmount } = render(TimelineView, { timeline: t, session: 's' })
    expect(screen.getByTestId('run-metrics').textContent?.replace(/\s+/g, ' ')).toBe('last run: 7 turns · 6 tool calls · 0 malformed · 4 repeated · 2 made again to fit · 900/40 tokens · 3.0 s')
    unmount()
    const quiet = new Timeline(100, async () => [])
    quiet.apply([{ seq: 1, session: 's', type: 'metrics:run-recorded', time: '2026-12-07T00:00:01Z', data: run }])
    render(TimelineView, { timeline: quiet, session: 's' })
    expect(screen.getByTestId('run-metrics').textContent).not.toContain('repeated')
    expect(screen.getByTestId('run-metrics').textContent).not.toContain('made again')
  })
  it('says what a retry replaced', async () => {
    const t = new Timeline(100, async () => [])
    t.apply([{ seq: 9, session: 's', type: 'session:request-replaced', time: '2026-12-05T00:00:01Z', data: { run: 4, messages: 3, notes: 1 } }])
    render(TimelineView, { timeline: t, session: 's' })
    expect(summary(t.events[0].data)).toBe("retried or edited: request 4 and those after it left the model's history (3 messages; 1 working note they set dropped)")
    await fireEvent.change(screen.getByLabelText('Filter by type'), { target: { value: 'session' } })
    expect(screen.getByTestId('timeline-count').textContent).toBe('1 of 1 events')
  })
  it("says which MCP server changed, to what, and why", () => {
    for (const [data, want] of [
      [{ name: 'files', state: 'running', transport: 'stdio', tools: [{ name: 'read' }, { name: 'write' }], failures: 0 }, 'the files server: running, 2 tools'],
      [{ name: 'broken', state: 'restarting', transport: 'stdio', tools: [], failures: 2, last_error: 'the server exited (exit status 1)' }, 'the broken server: restarting after 2 failures in a row: the server exited (exit status 1)'],
      [{ name: 'docs', state: 'sign-in', transport: 'http', tools: [] }, 'the docs server: sign-in'],
    ] as const) {
      expect(summary(data)).toBe(want)
    }
  })
  it('says which hook runs, and what asking the model cost', () => {
    const hook = 'Claude Code Stop prompt hook 2f8f6089 (Did the answer greet the user?)'
    for (const [data, want] of [
      [{ event: 'pre-run-end', hook }, hook],
      [{ hook, model: 'qwen3:4b', prompt_tokens: 1273, completion_tokens: 12, duration_ms: 900 }, `${hook} asked qwen3:4b: 1,273 tokens in, 12 out`],
      [{ id: 'c1', server: 'notes', model: 'qwen3:4b', prompt_tokens: 40, completion_tokens: 9 }, 'the notes server had qwen3:4b write: 40 tokens in, 9 out'],
      [{ model: 'qwen3:4b', run: { prompt_tokens: 17, completion_tokens: 2 }, session: { prompt_tokens: 290, completion_tokens: 4 } }, '17 tokens in, 2 out (the session: 290 tokens in, 4 out)'],
    ] as const) {
      expect(summary(data)).toBe(want)
    }
  })
})
