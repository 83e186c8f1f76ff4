import { describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/go/desktop/System', () => ({
  Info: vi.fn(),
  OllamaStatus: vi.fn(),
  Refresh: vi.fn(),
}))

import StatusBar from './StatusBar.svelte'
import { OllamaState } from '../../state/ollama.svelte'
import type { OllamaStatus } from '../../backend/types'

function state(status: Partial<OllamaStatus>): OllamaState {
  const s = new OllamaState()
  s.loading = false
  s.status = { host: 'http://127.0.0.1:11434', reachable: false, foreign: false, version: '', models: [], error: '', ...status } as OllamaStatus
  return s
}

describe('StatusBar', () => {
  it('tells the user how to start Ollama when it is down', () => {
    render(StatusBar, { ollama: state({ host: 'http://10.0.0.5:11434' }) })
    expect(screen.getByTestId('ollama-status').textContent).toBe(
      'Ollama is not running at http://10.0.0.5:11434 — start it with ollama serve',
    )
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy()
  })

  it('says when something else answers at the address', () => {
    const error = 'ollama is not reachable: the host is not Ollama: http://127.0.0.1:8080 answered with a web page (HTTP 404), not as Ollama does'
    render(StatusBar, { ollama: state({ host: 'http://127.0.0.1:8080', foreign: true, error }) })
    const status = screen.getByTestId('ollama-status')
    expect(status.textContent).toContain('Something else answers at http://127.0.0.1:8080, not Ollama')
    expect(status.textContent).not.toContain('ollama serve')
    expect(status.getAttribute('title')).toBe(error)
  })

  it('lists the models when Ollama is up', () => {
    render(StatusBar, { ollama: state({ reachable: true, foreign: false, version: '0.24.0', models: ['qwen3:4b', 'llama3.1:8b'] }) })
    expect(screen.getByTestId('ollama-status').textContent).toContain('Ollama 0.24.0 at http://127.0.0.1:11434')
    expect(screen.getByTestId('ollama-models').textContent).toContain('2 models: qwen3:4b, llama3.1:8b')
  })

  it('says when no model is installed', () => {
    render(StatusBar, { ollama: state({ reachable: true, foreign: false, version: '0.24.0' }) })
    expect(screen.getByText(/no models installed/)).toBeTruthy()
  })
})
