// The only module that imports the System bindings.
import { Info as InfoCall, OllamaStatus as StatusCall, Refresh, WindowFocus, WindowResized } from '../../../wailsjs/go/desktop/System'
import { debounce } from '../debounce'
import type { Info, OllamaStatus } from './types'

export const system = {
  info: (): Promise<Info> => InfoCall(),
  ollamaStatus: (): Promise<OllamaStatus> => StatusCall(),
  refresh: (): Promise<OllamaStatus> => Refresh(),
  windowFocus: (active: boolean): Promise<void> => WindowFocus(active),
  windowResized: (): Promise<void> => WindowResized(),
}

/**
 * Tells the backend, once the user has stopped resizing the window (half a
 * second without another change), that its size changed: the next launch
 * opens at that size. Returns the unsubscribe.
 */
export function reportResize(report: () => Promise<void> = system.windowResized, win: Window = window, ms = 500): () => void {
  const changed = debounce(() => void report().catch(() => {}), ms)
  win.addEventListener('resize', changed)
  return () => win.removeEventListener('resize', changed)
}

/**
 * Tells the backend whether the window is in front (focused and not
 * hidden) now and whenever that changes: desktop notifications go out
 * only while it is not. Returns the unsubscribe.
 */
export function reportFocus(
  report: (active: boolean) => Promise<void> = system.windowFocus,
  win: Window = window,
  doc: Document = document,
): () => void {
  let last: boolean | undefined
  const check = () => {
    const active = doc.hasFocus() && doc.visibilityState !== 'hidden'
    if (active === last) return
    last = active
    report(active).catch(() => {
      last = undefined // said again at the next change
    })
  }
  win.addEventListener('focus', check)
  win.addEventListener('blur', check)
  doc.addEventListener('visibilitychange', check)
  check()
  return () => {
    win.removeEventListener('focus', check)
    win.removeEventListener('blur', check)
    doc.removeEventListener('visibilitychange', check)
  }
}
