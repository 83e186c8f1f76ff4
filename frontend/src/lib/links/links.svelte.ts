import { BrowserOpenURL } from '../../../wailsjs/runtime/runtime'

/** The schemes a link may be opened with, in the user's browser or mail app. */
const OPENABLE = new Set(['http:', 'https:', 'mailto:'])

/**
 * A mail link that asks the mail app to attach a file (`attach=`,
 * `attachment=`): several mail clients did, so a link in an answer could
 * mail ~/.ssh/id_rsa away with one click ("Mailto: Me Your Secrets",
 * Müller et al., 2020). Such a link is not opened.
 */
function attaches(url: URL): boolean {
  if (url.protocol !== 'mailto:') return false
  return [...url.searchParams.keys()].some((k) => /^attach(ment)?$/i.test(k.trim()))
}

/**
 * Links in the window go through here. A click on a link that leaves the
 * app never navigates the window itself (a page loaded there could call
 * the app's bound methods); the link waits for the user, with its whole
 * address shown, and opens in their browser only when they say so.
 */
export class LinkState {
  /** The address waiting for the user's answer. */
  pending = $state<string | null>(null)

  constructor(private open: (url: string) => void = (url) => BrowserOpenURL(url)) {}

  /** Click handler (capture phase, on the window): holds every link that leaves the app. */
  intercept = (ev: MouseEvent): void => {
    const a = (ev.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null
    if (!a) return
    const url = new URL(a.href, location.href)
    if (url.origin === location.origin || url.protocol === 'blob:') return // the app's own (a download)
    ev.preventDefault()
    ev.stopPropagation()
    if (OPENABLE.has(url.protocol) && !attaches(url)) this.pending = url.href
  }

  /** Opens the pending link in the user's browser. */
  confirm(): void {
    if (this.pending) this.open(this.pending)
    this.pending = null
  }

  cancel(): void {
    this.pending = null
  }
}
