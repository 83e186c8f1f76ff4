import { describe, expect, it, vi } from 'vitest'

vi.mock('../../../wailsjs/go/desktop/System', () => ({
  Info: vi.fn(),
  OllamaStatus: vi.fn(async () => ({ host: 'h', reachable: true, foreign: false, version: '1', models: ['m'], error: '' })),
  Refresh: vi.fn(async () => {
    throw new Error('backend gone')
  }),
}))

const models = vi.fn(async () => [{ name: 'm', tools: true, embedding: false, checked: true }])
vi.mock('../../../wailsjs/go/desktop/FirstRun', () => ({ Models: () => models() }))

import { OLLAMA_STATUS, OllamaState } from './ollama.svelte'

describe('OllamaState', () => {
  it('loads the status through the binding', async () => {
    const s = new OllamaState()
    await s.load()
    expect(s.status?.models).toEqual(['m'])
    expect(s.loading).toBe(false)
  })

  it('applies the newest status event of a batch', () => {
    const s = new OllamaState()
    const mk = (reachable: boolean) => ({ seq: 0, session: '', type: OLLAMA_STATUS, time: '', data: { host: 'h', reachable, version: '', models: [], error: '' } })
    s.apply([mk(false), { seq: 1, session: '', type: 'agent:token', time: '', data: {} }, mk(true)])
    expect(s.status?.reachable).toBe(true)
  })

  it('keeps the old status when a refresh fails', async () => {
    const s = new OllamaState()
    await s.load()
    await expect(s.refresh()).rejects.toThrow('backend gone')
    expect(s.status?.reachable).toBe(true)
    expect(s.loading).toBe(false)
  })

  it('asks what each installed model can do once per model list, and forgets it when Ollama is down', async () => {
    const s = new OllamaState()
    await s.load()
    s.followChoices()
    s.followChoices()
    await vi.waitFor(() => expect(s.choices?.map((c) => c.name)).toEqual(['m']))
    expect(models).toHaveBeenCalledTimes(1)
    s.apply([{ seq: 0, session: '', type: OLLAMA_STATUS, time: '', data: { host: 'h', reachable: false, foreign: false, version: '', models: [], error: 'down' } }])
    s.followChoices()
    expect(s.choices).toBeNull()
    s.apply([{ seq: 1, session: '', type: OLLAMA_STATUS, time: '', data: { host: 'h', reachable: true, foreign: false, version: '1', models: ['m'], error: '' } }])
    s.followChoices()
    await vi.waitFor(() => expect(s.choices).not.toBeNull())
    expect(models).toHaveBeenCalledTimes(2)
  })
})
