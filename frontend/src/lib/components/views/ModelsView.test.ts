import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'
import ModelsView from './ModelsView.svelte'
import type { ModelsState } from '../../state/models.svelte'
import type { OllamaState } from '../../state/ollama.svelte'

const info = (name: string) => ({ name, size: 2_000_000_000, family: 'qwen3', parameter_size: '4B', quantization: 'Q4_K_M', context_length: 40960, modified: '' })

describe('ModelsView', () => {
  it('says what each model can be used for, from what Ollama said of it', async () => {
    const models = { items: ['qwen3:4b', 'gemma:2b', 'nomic-embed-text:latest', 'new:latest'].map(info), pulls: {}, inMemory: {}, loading: false, error: '', load: vi.fn() }
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

  it('says which models are in memory until when, and unloads one', async () => {
    const unload = vi.fn(async () => {})
    const models = {
      items: ['qwen3:4b', 'gemma3:4b', 'llava:7b'].map(info),
      pulls: {},
      inMemory: {
        'qwen3:4b': { name: 'qwen3:4b', size: 3 * 2 ** 30, size_vram: 0, context_length: 8192, until: '2026-12-05T17:45:00Z', forever: false },
        'gemma3:4b': { name: 'gemma3:4b', size: 4 * 2 ** 30, size_vram: 4 * 2 ** 30, context_length: 4096, until: '2318-03-01T00:00:00Z', forever: true },
      },
      loading: false,
      error: '',
      load: vi.fn(),
      unload,
    }
    render(ModelsView, { models: models as unknown as ModelsState, ollama: { status: { reachable: true }, choices: [] } as unknown as OllamaState })
    const cells = await screen.findAllByTestId('model-memory')
    expect(cells[0].textContent).toMatch(/^3\.0 GiB, until \d\d:\d\d( [AP]M)?\s*Unload$/)
    expect(cells[0].querySelector('span')!.title).toContain('on the CPU, context 8192')
    expect(cells[1].textContent).toContain('4.0 GiB, until Ollama stops')
    expect(cells[1].querySelector('span')!.title).toContain('on the GPU')
    expect(cells[2].textContent!.trim()).toBe('—')
    await fireEvent.click(screen.getByRole('button', { name: 'Unload gemma3:4b' }))
    expect(unload).toHaveBeenCalledWith('gemma3:4b')
  })
})
