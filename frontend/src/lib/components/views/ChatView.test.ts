import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/go/desktop/Chat', () => ({
  Send: vi.fn(),
  Stop: vi.fn(),
  Models: vi.fn(async () => []),
  DefaultWorkspace: vi.fn(async () => '/w'),
  Instructions: vi.fn(async () => ({ files: [], warnings: [] })),
  OpenInstructions: vi.fn(),
  PickWorkspace: vi.fn(),
}))

vi.mock('../../../../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))
vi.mock('../../../../wailsjs/go/desktop/Extensions', () => ({
  Prompts: vi.fn(async () => []),
  UsePrompt: vi.fn(),
}))

import ChatView from './ChatView.svelte'
import { CHAT_PAGE, ChatState } from '../../state/chat.svelte'
import type { OllamaState } from '../../state/ollama.svelte'
import type { ModelsState } from '../../state/models.svelte'
import type { BusEvent } from '../../backend/types'

describe('ChatView', () => {
  it('opens a session of 2,000 runs on its newest items and shows earlier ones on request', async () => {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const events: BusEvent[] = []
    for (let r = 0; r < 2000; r++) {
      events.push(ev('agent:run-started', { text: `request ${r}` }), ev('agent:token', { text: `answer ${r}` }), ev('agent:run-ended', { status: 'responded' }))
    }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    const ollama = { status: { reachable: true, foreign: false, models: ['m'], host: '' }, choices: [{ name: 'm', checked: true, tools: true }] } as unknown as OllamaState
    render(ChatView, { ollama, chat, models: {} as ModelsState, onopenprocedure: vi.fn() })
    const answers = () => screen.getAllByTestId('assistant').map((a) => a.textContent?.trim())
    expect(answers()).toHaveLength(CHAT_PAGE / 2)
    expect(answers().at(-1)).toBe('answer 1999')
    expect(screen.getByTestId('show-earlier').textContent).toBe(`Show earlier messages (${4000 - CHAT_PAGE} not shown)`)
    await fireEvent.click(screen.getByTestId('show-earlier'))
    expect(answers()).toHaveLength(CHAT_PAGE)
    expect(answers()[0]).toBe(`answer ${2000 - CHAT_PAGE}`)
    // A new chat starts empty, without the button.
    chat.reset()
    await vi.waitFor(() => expect(screen.queryByTestId('show-earlier')).toBeNull())
  })
})
