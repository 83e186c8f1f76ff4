/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest'

// A selector written twice in one component's style block: the later rule
// quietly overrides the earlier one. That is how the Extensions view's help
// paragraphs took the look of the tool tags (both were ".hint"), so every
// selector is written once per component, at the top level.
const components = import.meta.glob<string>('./**/*.svelte', { query: '?raw', import: 'default', eager: true })

function repeatedSelectors(css: string): string[] {
  const seen = new Map<string, number>()
  let depth = 0
  let head = ''
  for (const ch of css.replace(/\/\*[\s\S]*?\*\//g, '')) {
    if (ch === '{') {
      if (depth === 0 && !head.trim().startsWith('@')) {
        for (const one of head.split(',')) {
          const sel = one.trim().replace(/\s+/g, ' ')
          seen.set(sel, (seen.get(sel) ?? 0) + 1)
        }
      }
      depth++
      head = ''
    } else if (ch === '}') {
      depth--
      head = ''
    } else if (depth === 0) {
      head += ch
    }
  }
  return [...seen].filter(([, n]) => n > 1).map(([sel]) => sel)
}

describe('component styles', () => {
  it('finds a selector written twice', () => {
    expect(repeatedSelectors('.a { color: red } .b, .a { margin: 0 } @media (x) { .a { color: blue } }')).toEqual(['.a'])
    expect(repeatedSelectors('.a { color: red } /* .a { } */ .a.b { margin: 0 }')).toEqual([])
  })

  it('are read', () => expect(Object.keys(components).length).toBeGreaterThan(20))

  it.each(Object.entries(components))('%s writes each selector once', (_file, source) => {
    const css = /<style>([\s\S]*?)<\/style>/.exec(source)?.[1] ?? ''
    expect(repeatedSelectors(css)).toEqual([])
  })
})
