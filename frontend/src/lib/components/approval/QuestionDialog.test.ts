import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

const answer = vi.fn(async (_s: string, _id: string, action: string, values: Record<string, string>) => {
  // The backend's own check (the form's constraints stop most answers first).
  if (action === 'accept' && values.count === '3') throw new Error('How many: 3 is out of stock')
})
const question = vi.fn(async (_s: string, id: string) => ({
  id,
  tool: 'mcp.shop.order',
  message: 'Which shirt?\nWe ship tomorrow.',
  fields: [
    { name: 'count', title: 'How many', type: 'integer', required: true, min: 1, max: 9 },
    { name: 'gift', type: 'boolean', description: 'wrap it' },
    { name: 'size', type: 'string', choices: ['s', 'm'], choice_names: ['Small', 'Medium'], default: 'm' },
    { name: 'fish', type: 'array', choices: ['fish-1', 'fish-2'], choice_names: ['Tuna', 'Salmon'], default: ['fish-2'] },
  ],
}))
vi.mock('../../../../wailsjs/go/desktop/Approvals', () => ({
  Resolve: vi.fn(),
  Request: vi.fn(),
  Question: (s: string, id: string) => question(s, id),
  AnswerQuestion: (s: string, id: string, action: string, values: Record<string, string>) => answer(s, id, action, values),
}))
vi.mock('../../../../wailsjs/go/desktop/Chat', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Procedures', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Models', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Settings', () => ({}))
vi.mock('../../../../wailsjs/go/desktop/Sessions', () => ({}))

import QuestionDialog from './QuestionDialog.svelte'
import { QuestionsState } from '../../state/questions.svelte'

describe('QuestionDialog', () => {
  it('shows the tool question as its words, shows a refused answer, and sends one that fits', async () => {
    const q = new QuestionsState()
    render(QuestionDialog, { questions: q })
    q.apply([{ seq: 1, session: 's', type: 'tool:question', time: '', data: { id: 'c1', tool: 'mcp.shop.order', message: 'redacted' } }])
    expect((await screen.findByTestId('question-message')).textContent).toBe('Which shirt?\nWe ship tomorrow.')
    expect(screen.getByText(/The tool's words, not Shrimp's/)).toBeTruthy()
    expect((screen.getByLabelText('size') as HTMLSelectElement).value).toBe('m')
    await fireEvent.input(screen.getByLabelText('How many (required)'), { target: { value: '3' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Send answer' }))
    expect((await screen.findByRole('alert')).textContent).toContain('3 is out of stock')
    expect(q.pending).toHaveLength(1)
    await fireEvent.input(screen.getByLabelText('How many (required)'), { target: { value: '2' } })
    expect((screen.getByLabelText('Salmon') as HTMLInputElement).checked).toBe(true)
    await fireEvent.click(screen.getByLabelText('Tuna'))
    await fireEvent.click(screen.getByRole('button', { name: 'Send answer' }))
    await vi.waitFor(() => expect(q.pending).toHaveLength(0))
    expect(answer).toHaveBeenLastCalledWith('s', 'c1', 'accept', { count: '2', gift: '', size: 'm', fish: 'fish-2,fish-1' })
  })

  it('shows a page to open whole, with the host it reaches and its warnings, and opens it on agreement', async () => {
    question.mockImplementationOnce(async (_s: string, id: string) => ({
      id,
      tool: 'mcp.pay.checkout',
      message: 'Pay for the order',
      fields: [],
      url: 'https://bank.example@evil.example/pay?id=7',
      warnings: ['the address names "bank.example" before its host: the page comes from evil.example'],
    }))
    const q = new QuestionsState()
    render(QuestionDialog, { questions: q })
    q.apply([{ seq: 1, session: 's', type: 'tool:question', time: '', data: { id: 'p1', tool: 'mcp.pay.checkout' } }])
    expect((await screen.findByTestId('question-url')).textContent).toBe('https://bank.example@evil.example/pay?id=7')
    expect(screen.getByText('evil.example').tagName).toBe('STRONG')
    expect(screen.getByTestId('question-url-warning').textContent).toContain('the page comes from evil.example')
    await fireEvent.click(screen.getByRole('button', { name: 'Open in browser' }))
    await vi.waitFor(() => expect(q.pending).toHaveLength(0))
    expect(answer).toHaveBeenLastCalledWith('s', 'p1', 'accept', {})
  })

  it("asks whether a server may use the model as Shrimp's question, with the server's text in it", async () => {
    question.mockImplementationOnce(async (_s: string, id: string) => ({
      id,
      tool: 'mcp.notes.summarize',
      message: 'The MCP server "notes" asks to use qwen3:4b to write a reply of at most 64 tokens to the conversation below.\n\nuser:\nthe minutes',
      fields: [],
      sample: true,
    }))
    const q = new QuestionsState()
    render(QuestionDialog, { questions: q })
    q.apply([{ seq: 1, session: 's', type: 'tool:question', time: '', data: { id: 'm1', tool: 'mcp.notes.summarize' } }])
    expect((await screen.findByRole('heading')).textContent).toBe('mcp.notes.summarize asks to use your model')
    expect(screen.getByTestId('question-message').textContent).toContain('user:\nthe minutes')
    expect(screen.getByText(/the model's reply goes to the server only/)).toBeTruthy()
    expect(screen.queryByText(/The tool's words, not Shrimp's/)).toBeNull()
    await fireEvent.click(screen.getByRole('button', { name: 'Let the model answer' }))
    await vi.waitFor(() => expect(q.pending).toHaveLength(0))
    expect(answer).toHaveBeenLastCalledWith('s', 'm1', 'accept', {})
  })

  it('declines, and goes when the call ends unanswered', async () => {
    const q = new QuestionsState()
    render(QuestionDialog, { questions: q })
    q.apply([{ seq: 1, session: 's', type: 'tool:question', time: '', data: { id: 'c2', tool: 'mcp.shop.order' } }])
    await fireEvent.click(await screen.findByRole('button', { name: 'Decline' }))
    expect(answer).toHaveBeenLastCalledWith('s', 'c2', 'decline', {})
    q.apply([{ seq: 2, session: 's', type: 'tool:question', time: '', data: { id: 'c3', tool: 'mcp.shop.order' } }])
    await screen.findByTestId('question-message')
    q.apply([{ seq: 3, session: 's', type: 'tool:answered', time: '', data: { id: 'c3', tool: 'mcp.shop.order', action: 'cancel' } }])
    expect(q.pending).toHaveLength(0)
  })
})
