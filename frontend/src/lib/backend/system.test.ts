import { describe, expect, it, vi } from 'vitest'

vi.mock('../../../wailsjs/go/desktop/System', () => ({
  Info: vi.fn(),
  OllamaStatus: vi.fn(),
  Refresh: vi.fn(),
  WindowFocus: vi.fn(async () => {}),
  WindowResized: vi.fn(async () => {}),
}))

import { reportFocus, reportResize } from './system'

// A window and document whose focus and visibility the test sets.
function page() {
  const win = new EventTarget() as Window
  const doc = new EventTarget() as Document & { focused: boolean; state: DocumentVisibilityState }
  doc.focused = true
  doc.state = 'visible'
  Object.defineProperty(doc, 'visibilityState', { get: () => doc.state })
  doc.hasFocus = () => doc.focused
  return { win, doc }
}

describe('reportFocus', () => {
  it('says whether the window is in front now and at each change, once per change', async () => {
    const { win, doc } = page()
    const said: boolean[] = []
    const off = reportFocus(async (a) => void said.push(a), win, doc)
    expect(said).toEqual([true])
    doc.focused = false
    win.dispatchEvent(new Event('blur'))
    win.dispatchEvent(new Event('blur'))
    expect(said).toEqual([true, false])
    doc.focused = true
    win.dispatchEvent(new Event('focus'))
    doc.state = 'hidden' // minimised: focused or not, not in front
    doc.dispatchEvent(new Event('visibilitychange'))
    expect(said).toEqual([true, false, true, false])
    off()
    doc.state = 'visible'
    doc.dispatchEvent(new Event('visibilitychange'))
    expect(said).toHaveLength(4)
  })

  it('says it again after a report that failed', async () => {
    const { win, doc } = page()
    const said: boolean[] = []
    let fail = true
    reportFocus(async (a) => {
      said.push(a)
      if (fail) throw new Error('not bound yet')
    }, win, doc)
    await Promise.resolve()
    await Promise.resolve()
    fail = false
    win.dispatchEvent(new Event('focus'))
    expect(said).toEqual([true, true])
  })
})

describe('reportResize', () => {
  it('says the size changed once the resizing stops', () => {
    vi.useFakeTimers()
    const win = new EventTarget() as Window
    let said = 0
    const off = reportResize(async () => void said++, win, 500)
    for (let i = 0; i < 10; i++) {
      win.dispatchEvent(new Event('resize'))
      vi.advanceTimersByTime(100)
    }
    expect(said).toBe(0)
    vi.advanceTimersByTime(500)
    expect(said).toBe(1)
    off()
    win.dispatchEvent(new Event('resize'))
    vi.advanceTimersByTime(1000)
    expect(said).toBe(1)
    vi.useRealTimers()
  })
})
