import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../wailsjs/go/desktop/System', () => ({
  Info: vi.fn(async () => ({ version: 'v0', data_dir: '/data', ollama_host: 'http://h:1' })),
  OllamaStatus: vi.fn(async () => ({ host: 'http://h:1', reachable: false, version: '', models: [], error: 'down' })),
  Refresh: vi.fn(),
}))
vi.mock('../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))

import App from './App.svelte'

describe('App shell', () => {
  it('shows the sidebar views and switches the main pane', async () => {
    render(App)
    for (const name of ['Chat', 'Timeline', 'Procedures', 'Sessions', 'Settings']) {
      expect(screen.getByRole('button', { name })).toBeTruthy()
    }
    expect(await screen.findByText('Ollama is not running')).toBeTruthy()
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    expect((await screen.findByTestId('settings-datadir')).textContent).toBe('/data')
    expect(screen.getByRole('button', { name: 'Settings' }).getAttribute('aria-current')).toBe('page')
  })
})
