import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))
vi.mock('../../../../wailsjs/go/desktop/Models', () => ({ List: vi.fn(async () => []), Pull: vi.fn(async () => {}), CancelPull: vi.fn(), Delete: vi.fn() }))
vi.mock('../../../../wailsjs/go/desktop/FirstRun', () => ({
  Ollama: vi.fn(),
  StartOllama: vi.fn(),
  Models: vi.fn(async () => []),
  RecommendedModels: vi.fn(async () => [
    { name: 'qwen3:1.7b', size: '1.4 GB', note: 'fast' },
    { name: 'qwen3:4b', size: '2.5 GB', note: 'best' },
  ]),
  FirstWorkspace: vi.fn(async () => '/home/u/Shrimp'),
  CreateWorkspace: vi.fn(async (d: string) => d),
}))

import OllamaSetup from './OllamaSetup.svelte'
import ModelSetup from './ModelSetup.svelte'
import WorkspaceSetup from './WorkspaceSetup.svelte'
import TourHost from './TourHost.test.svelte'
import { ModelsState } from '../../state/models.svelte'
import { CreateWorkspace, Ollama, StartOllama } from '../../../../wailsjs/go/desktop/FirstRun'
import { Pull } from '../../../../wailsjs/go/desktop/Models'

beforeEach(() => localStorage.clear())

describe('first run', () => {
  it('starts an installed Ollama, and shows its log when it fails', async () => {
    vi.mocked(Ollama).mockResolvedValue({ installed: true, path: '/usr/bin/ollama', local: true, started: false, install: [], log: ['Error: bind: address already in use'] })
    vi.mocked(StartOllama).mockRejectedValueOnce('ollama serve stopped (exit status 1): Error: bind: address already in use')
    render(OllamaSetup, { host: 'http://127.0.0.1:11434' })
    await fireEvent.click(await screen.findByRole('button', { name: 'Start Ollama' }))
    expect(vi.mocked(StartOllama)).toHaveBeenCalled()
    expect((await screen.findByRole('alert')).textContent).toContain('address already in use')
    expect(screen.getByTestId('ollama-log').textContent).toContain('bind')
  })

  it('says how to install Ollama when it is missing', async () => {
    vi.mocked(Ollama).mockResolvedValue({ installed: false, path: '', local: true, started: false, install: ['curl -fsSL https://ollama.com/install.sh | sh', 'or download it from https://ollama.com/download/linux'], log: [] })
    render(OllamaSetup)
    expect(await screen.findByText('curl -fsSL https://ollama.com/install.sh | sh')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Start Ollama' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Copy curl -fsSL https://ollama.com/install.sh | sh' })).toBeTruthy()
  })

  it('offers small tool-calling models, pulls one with progress, then selects it', async () => {
    const models = new ModelsState()
    const chosen = vi.fn()
    const { rerender } = render(ModelSetup, { models, installed: ['plain:latest'], onchosen: chosen })
    expect(await screen.findByText('No installed model can call tools')).toBeTruthy()
    expect((await screen.findAllByTestId('recommended-model')).length).toBe(2)
    await fireEvent.click(screen.getAllByRole('button', { name: 'Pull' })[1])
    expect(vi.mocked(Pull)).toHaveBeenCalledWith('qwen3:4b')
    models.apply([{ seq: 0, session: '', type: 'model:pull-progress', time: '', data: { model: 'qwen3:4b', status: 'pulling', completed: 1, total: 4, percent: 25, done: false, error: '' } }])
    expect((await screen.findByTestId('setup-progress')).textContent).toContain('25%')
    models.apply([{ seq: 0, session: '', type: 'model:pull-progress', time: '', data: { model: 'qwen3:4b', status: 'success', completed: 4, total: 4, percent: 100, done: true, error: '' } }])
    await rerender({ models, installed: ['plain:latest', 'qwen3:4b'], onchosen: chosen })
    await vi.waitFor(() => expect(chosen).toHaveBeenCalledWith('qwen3:4b'))
  })

  it('offers ~/Shrimp as the first workspace', async () => {
    const chosen = vi.fn()
    render(WorkspaceSetup, { onchosen: chosen, onpick: vi.fn() })
    const use = await screen.findByRole('button', { name: 'Use /home/u/Shrimp' })
    expect(use.classList.contains('primary')).toBe(true) // no folder used before
    await fireEvent.click(use)
    expect(vi.mocked(CreateWorkspace)).toHaveBeenCalledWith('/home/u/Shrimp')
    await vi.waitFor(() => expect(chosen).toHaveBeenCalledWith('/home/u/Shrimp'))
  })

  it('offers the folders earlier sessions worked in first', async () => {
    vi.mocked(CreateWorkspace).mockClear()
    const chosen = vi.fn()
    const recent = [
      { path: '/home/u/code/site', sessions: 3 },
      { path: '/home/u/notes', sessions: 1 },
    ]
    render(WorkspaceSetup, { onchosen: chosen, onpick: vi.fn(), recent })
    const first = await screen.findByRole('button', { name: '/home/u/code/site 3 sessions' })
    expect(first.classList.contains('primary')).toBe(true)
    expect(screen.getByRole('button', { name: '/home/u/notes 1 session' }).classList.contains('primary')).toBe(false)
    expect((await screen.findByRole('button', { name: 'Use /home/u/Shrimp' })).classList.contains('primary')).toBe(false)
    await fireEvent.click(first)
    expect(chosen).toHaveBeenCalledWith('/home/u/code/site')
    expect(vi.mocked(CreateWorkspace)).not.toHaveBeenCalled()
  })

  it('shows a tour card once per user', async () => {
    const first = render(TourHost)
    await fireEvent.click(screen.getByRole('button', { name: 'Got it' }))
    expect(screen.queryByTestId('tour-demo')).toBeNull()
    first.unmount()
    render(TourHost)
    expect(screen.queryByTestId('tour-demo')).toBeNull()
    expect(localStorage.getItem('shrimp.tour.demo')).toBe('done')
  })
})
