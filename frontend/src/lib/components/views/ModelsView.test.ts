import { describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/svelte'
import ModelsView from './ModelsView.svelte'
import type { ModelsState } from '../../state/models.svelte'
import type { OllamaState } from '../../state/ollama.svelte'

const info = (name: string) => ({ name, size: 2_000_000_000, family: 'qwen3', parameter_size: '4B', quantization: 'Q4_K_M', context_length: 40960, modified: '' })

describe('ModelsView', () => {
  it('says what each model can be used for, from what Ollama said of it', async () => {
    const models = { items: ['qwen3:4b', 'gemma:2b', 'nomic-embed-text:latest', 'new:latest'].map(info), pulls: {}, loading: false, error: '', load: vi.fn() }
    const ollama = {
      status: { reachable: true, foreign: false, models: [] },
      choices: [
        { name: 'qwen3:4b', tools: true, embedding: false, checked: true },
        { name: 'gemma:2b', tools: false, embedding: false, checked: true },
        { name: 'nomic-embed-text:latest', tools: false, embedding: true, checked: true },
        { name: 'new:latest', tools: false, embedding: false, checked: false },
      ],
    }
    render(ModelsView, { models: models as unknown as ModelsState, ollama: ollama as unknown as OllamaState })
    const cells = await screen.findAllByTestId('model-use')
    expect(cells.map((c) => c.textContent)).toEqual(['chat with tools', 'chat, tools in its prompt', 'recall (embedding)', '—'])
    expect(cells[1].title).toMatch(/describes the tools in its prompt/)
    expect(cells[2].title).toMatch(/Settings/)
    expect(models.load).toHaveBeenCalled()
  })
})
