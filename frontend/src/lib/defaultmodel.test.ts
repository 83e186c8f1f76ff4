import { describe, expect, it } from 'vitest'
import { defaultModel, listedName } from './defaultmodel'

describe('defaultModel', () => {
  const installed = ['careless:latest', 'evil:latest', 'qwen3:4b']
  it.each([
    ['qwen3:4b', 'evil', 'qwen3:4b'], // Settings' choice first
    ['', 'evil', 'evil:latest'], // then the start-up model, tagged as Ollama reads it
    ['', 'qwen3:4b', 'qwen3:4b'],
    ['gone:1b', 'evil:latest', 'evil:latest'], // a choice no longer installed
    ['', 'nope', 'careless:latest'], // else the first installed
    ['', '', 'careless:latest'],
  ])('chosen %s, started %s: %s', (chosen, started, want) => {
    expect(defaultModel(installed, chosen, started)).toBe(want)
  })
  it.each([
    ['qwen3', 'qwen3:latest'],
    ['qwen3:4b', 'qwen3:4b'],
    [' qwen3 ', 'qwen3:latest'],
    ['registry.local:5000/team/m', 'registry.local:5000/team/m:latest'],
    ['hf.co/u/repo:Q4_K_M', 'hf.co/u/repo:Q4_K_M'],
    ['', ''],
  ])('lists %s as %s', (name, want) => {
    expect(listedName(name)).toBe(want)
  })
  it('takes a chosen default without its tag', () => {
    expect(defaultModel(['careless:latest', 'qwen3:latest'], 'qwen3', '')).toBe('qwen3:latest')
  })
  it('has nothing to give without models', () => {
    expect(defaultModel([], 'a', 'b')).toBe('')
  })
})
