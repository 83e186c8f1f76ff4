import { describe, expect, it } from 'vitest'
import { chainText, steps } from './chain'

describe('steps', () => {
  it.each([
    [[], []],
    [['fs.list'], [{ tool: 'fs.list', count: 1, start: 0 }]],
    [
      ['fs.list', 'fs.read', 'fs.read', 'fs.read', 'fs.write'],
      [
        { tool: 'fs.list', count: 1, start: 0 },
        { tool: 'fs.read', count: 3, start: 1 },
        { tool: 'fs.write', count: 1, start: 4 },
      ],
    ],
    // Only calls in a row are one step.
    [
      ['fs.read', 'shell.run', 'fs.read', 'fs.read'],
      [
        { tool: 'fs.read', count: 1, start: 0 },
        { tool: 'shell.run', count: 1, start: 1 },
        { tool: 'fs.read', count: 2, start: 2 },
      ],
    ],
  ])('%j', (tools, want) => {
    expect(steps(tools)).toEqual(want)
  })
})

describe('chainText', () => {
  it.each([
    [[], ''],
    [['fs.list', 'fs.read', 'fs.read', 'fs.read', 'fs.write'], 'fs.list → fs.read ×3 → fs.write'],
    [['fs.read', 'shell.run', 'fs.read'], 'fs.read → shell.run → fs.read'],
  ])('%j', (tools, want) => {
    expect(chainText(tools)).toBe(want)
  })
})
