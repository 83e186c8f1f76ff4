import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../wailsjs/runtime/runtime', () => ({ BrowserOpenURL: vi.fn() }))

import { LinkState } from './links.svelte'
import LinkDialog from '../components/LinkDialog.svelte'

function click(links: LinkState, href: string): MouseEvent {
  const a = document.createElement('a')
  a.href = href
  a.textContent = 'x'
  document.body.append(a)
  const ev = new MouseEvent('click', { bubbles: true, cancelable: true })
  window.addEventListener('click', links.intercept, true)
  a.dispatchEvent(ev)
  window.removeEventListener('click', links.intercept, true)
  a.remove()
  return ev
}

describe('LinkState', () => {
  it('holds a link that leaves the app until the user says so', () => {
    const open = vi.fn()
    const links = new LinkState(open)
    const ev = click(links, 'https://x.example/p?q=SECRET')
    expect(ev.defaultPrevented).toBe(true)
    expect(links.pending).toBe('https://x.example/p?q=SECRET')
    expect(open).not.toHaveBeenCalled()
    links.confirm()
    expect(open).toHaveBeenCalledWith('https://x.example/p?q=SECRET')
    expect(links.pending).toBeNull()
  })

  it('blocks what no browser should open and leaves the app its own', () => {
    const links = new LinkState(vi.fn())
    const file = click(links, 'file:///etc/passwd')
    expect(file.defaultPrevented).toBe(true)
    expect(links.pending).toBeNull()
    // A mail link that would attach a local file is not offered either.
    for (const href of ['mailto:a@b.example?subject=hi&attach=/home/u/.ssh/id_rsa', 'mailto:a@b.example?ATTACHMENT=~/.aws/credentials']) {
      expect(click(links, href).defaultPrevented).toBe(true)
      expect(links.pending).toBeNull()
    }
    click(links, 'mailto:a@b.example?subject=hi&body=there')
    expect(links.pending).toBe('mailto:a@b.example?subject=hi&body=there')
    links.cancel()
    expect(click(links, '#top').defaultPrevented).toBe(false)
    expect(click(links, 'blob:' + location.origin + '/1234').defaultPrevented).toBe(false)
  })

  it('shows the whole address and opens it only on the button', async () => {
    const open = vi.fn()
    const links = new LinkState(open)
    render(LinkDialog, { links })
    links.pending = 'https://x.example/p?q=SECRET'
    expect((await screen.findByTestId('link-address')).textContent).toBe('https://x.example/p?q=SECRET')
    expect(screen.getByRole('heading').textContent).toContain('x.example')
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(open).not.toHaveBeenCalled()
    links.pending = 'https://x.example/p?q=SECRET'
    await fireEvent.click(await screen.findByRole('button', { name: 'Open in browser' }))
    expect(open).toHaveBeenCalledOnce()
  })

  it('names a mail address or a host plainly, whatever the link holds', async () => {
    const links = new LinkState(vi.fn())
    render(LinkDialog, { links })
    links.pending = 'mailto:a%ZZ@b.example'
    expect((await screen.findByRole('heading')).textContent).toContain('a%ZZ@b.example')
    links.pending = 'mailto:admin%E2%80%AE@b.example'
    await vi.waitFor(() => expect(screen.getByRole('heading').textContent).toContain('admin\\u{202e}@b.example'))
    links.pending = new URL('https://ex\u0430mple.com/').href
    await vi.waitFor(() => expect(screen.getByRole('heading').textContent).toContain('xn--'))
  })
})
