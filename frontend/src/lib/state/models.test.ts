import { describe, expect, it, vi } from 'vitest'

const list = vi.fn(async () => [{ name: 'qwen3:4b', size: 1, family: 'qwen3', parameter_size: '4B', quantization: 'Q4_K_M', context_length: 40960, modified: '' }])
const pull = vi.fn(async (_name: string) => {})
vi.mock('../../../wailsjs/go/desktop/Models', () => ({ List: () => list(), Pull: (n: string) => pull(n), CancelPull: vi.fn(), Delete: vi.fn(async () => {}) }))
vi.mock('../../../wailsjs/go/desktop/Chat', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Approvals', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Procedures', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Sessions', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Settings', () => ({}))

import { ModelsState } from './models.svelte'

describe('ModelsState', () => {
  it('tracks pull progress and reloads when a pull is done', async () => {
    const m = new ModelsState()
    await m.pull('tiny')
    expect(pull).toHaveBeenCalledWith('tiny')
    m.apply([{ seq: 0, session: '', type: 'model:pull-progress', time: '', data: { model: 'tiny', status: 'pulling', completed: 50, total: 100, percent: 50, done: false, error: '' } }])
    expect(m.pulls['tiny'].percent).toBe(50)
    list.mockClear()
    m.apply([{ seq: 0, session: '', type: 'model:pull-progress', time: '', data: { model: 'tiny', status: 'success', completed: 100, total: 100, percent: 100, done: true, error: '' } }])
    await vi.waitFor(() => expect(m.items).toHaveLength(1))
    expect(list).toHaveBeenCalled()
    expect(m.items[0].name).toBe('qwen3:4b')
  })

  it('keeps the latest load when an older one answers last', async () => {
    const m = new ModelsState()
    let answerOld: (v: unknown) => void = () => {}
    const before = [{ name: 'a:latest', size: 1, family: '', parameter_size: '', quantization: '', context_length: 0, modified: '' }]
    const after = [...before, { ...before[0], name: 'tiny:latest' }]
    list.mockImplementationOnce(() => new Promise((r) => (answerOld = () => r(before))) as never)
    list.mockImplementationOnce(async () => after as never)
    const older = m.load()
    await m.load()
    answerOld(undefined)
    await older
    expect(m.items.map((i) => i.name)).toEqual(['a:latest', 'tiny:latest'])
    expect(m.loading).toBe(false)
  })

  it('ignores an empty name and deletes', async () => {
    const m = new ModelsState()
    pull.mockClear()
    await m.pull('  ')
    expect(pull).not.toHaveBeenCalled()
    await m.load()
    await m.remove('qwen3:4b')
    expect(m.items).toHaveLength(0)
  })
})
