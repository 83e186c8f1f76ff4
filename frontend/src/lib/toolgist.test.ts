import { describe, expect, it } from 'vitest'
import { toolGist } from './toolgist'

describe('toolGist', () => {
  it.each([
    ['a path', '{"path": "notes.txt"}', 'notes.txt'],
    ['telling names first, long text last', JSON.stringify({ content: 'x'.repeat(100), path: 'summary.txt' }), 'summary.txt  ' + 'x'.repeat(76) + '…'],
    ['a command on one line', JSON.stringify({ command: 'ls -la\n  | wc -l', timeout: 30 }), 'ls -la | wc -l  30'],
    ['objects and arrays left out', JSON.stringify({ query: 'shrimp', filters: { a: 1 }, tags: ['x'] }), 'shrimp'],
    ['no arguments', '{}', ''],
    ['not an object', '"text"', ''],
    ['not JSON', '{oops', ''],
  ])('%s', (_name, args, want) => {
    expect(toolGist(args)).toBe(want)
  })
})
