import { marked } from 'marked'
import DOMPurify from 'dompurify'

// Model and tool text is never trusted (a page it read may have written
// it): Markdown is rendered, then sanitized so that nothing in it reaches
// the network by itself. A remote image would be fetched as soon as it is
// shown, with whatever a prompt injection put in its URL (the EchoLeak
// pattern), so images become links the user can choose to open; CSS
// backgrounds, media, frames and forms, which would fetch too, are
// dropped. Links keep their address in plain sight (their title) and are
// opened only through the link dialog (see links.svelte.ts).

const purify = DOMPurify(window)

const FORBID_TAGS = ['style', 'template', 'form', 'input', 'button', 'textarea', 'select', 'option', 'video', 'audio', 'source', 'track', 'picture', 'iframe', 'object', 'embed', 'svg', 'math', 'link', 'meta', 'base']
const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'background', 'poster', 'ping', 'target']

/** The schemes a link in model text may have. */
const LINK_SCHEMES = /^(https?|mailto):/i

/** Renders untrusted Markdown to HTML that loads nothing by itself. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true }) as string
  const frag = purify.sanitize(html, { FORBID_TAGS, FORBID_ATTR, RETURN_DOM_FRAGMENT: true })
  for (const img of Array.from(frag.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? ''
    if (/^data:image\/(png|gif|jpe?g|webp);/i.test(src)) continue
    // Shown as a link to the image: nothing is fetched until the user asks.
    const a = document.createElement('a')
    const alt = img.getAttribute('alt')?.trim()
    a.textContent = `[image${alt ? `: ${alt}` : ''}]`
    a.className = 'held-image'
    if (LINK_SCHEMES.test(src)) a.setAttribute('href', src)
    img.replaceWith(a)
  }
  for (const a of Array.from(frag.querySelectorAll('a'))) {
    const href = a.getAttribute('href') ?? ''
    if (!LINK_SCHEMES.test(href)) {
      a.removeAttribute('href')
      continue
    }
    a.setAttribute('title', href)
    a.setAttribute('rel', 'noreferrer noopener')
  }
  const box = document.createElement('div')
  box.append(frag)
  return box.innerHTML
}
