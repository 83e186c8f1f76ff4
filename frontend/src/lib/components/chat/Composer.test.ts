import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

import Composer from './Composer.svelte'
import type { PromptChoice, ResourceChoice } from '../../backend/types'

describe('Composer', () => {
  it('gives a request that was not taken back to the box', async () => {
    const onsend = vi.fn(async () => false)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'summarize my notes' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(onsend).toHaveBeenCalledWith('summarize my notes', [])
    await vi.waitFor(() => expect(box.value).toBe('summarize my notes'))
  })

  // An input method (Chinese, Japanese, Korean) uses Enter to take a
  // conversion and the arrows to pick among candidates: while it
  // composes, they are its keys, not the box's.
  it('leaves Enter and the arrows to an input method composing text', async () => {
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {}, earlier: ['list my files'] })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'とうきょう' } })
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true })
    await fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 }) // WebKit's key that ends the composition
    await fireEvent.keyDown(box, { key: 'ArrowUp', isComposing: true })
    expect(onsend).not.toHaveBeenCalled()
    expect(box.value).toBe('とうきょう')
    await fireEvent.input(box, { target: { value: '東京の天気' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(onsend).toHaveBeenCalledWith('東京の天気', [])
  })

  it('attaches picked images, sends them with the request and gives them back when it was not taken', async () => {
    const onsend = vi.fn(async () => false)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const picker = screen.getByTestId('image-picker') as HTMLInputElement
    const shot = new File(['png!'], 'shot.png', { type: 'image/png' })
    await fireEvent.change(picker, { target: { files: [shot, new File(['x'], 'notes.txt', { type: 'text/plain' })] } })
    await vi.waitFor(() => expect(screen.getByAltText('shot.png')).toBeTruthy())
    expect(screen.getByTestId('attach-error').textContent).toContain('notes.txt is not a PNG, JPEG, GIF or WebP image')
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    expect(box.placeholder).toContain('Say what to do with the image')
    await fireEvent.input(box, { target: { value: 'what is this?' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(onsend).toHaveBeenCalledWith('what is this?', [expect.objectContaining({ name: 'shot.png', type: 'image/png', data: 'cG5nIQ==' })])
    // Refused (a model that cannot see): the text and the image come back.
    await vi.waitFor(() => expect(box.value).toBe('what is this?'))
    expect(screen.getByAltText('shot.png')).toBeTruthy()
    await fireEvent.click(screen.getByLabelText('Remove shot.png'))
    expect(screen.queryByAltText('shot.png')).toBeNull()
  })

  it('says the chosen model cannot see only while images are attached', async () => {
    render(Composer, { running: false, disabled: false, onsend: vi.fn(), onstop: () => {}, blind: 'qwen3:4b cannot see images' })
    expect(screen.queryByTestId('blind')).toBeNull()
    await fireEvent.change(screen.getByTestId('image-picker'), { target: { files: [new File(['p'], 'a.png', { type: 'image/png' })] } })
    await vi.waitFor(() => expect(screen.getByTestId('blind').textContent).toBe('qwen3:4b cannot see images'))
    await fireEvent.click(screen.getByLabelText('Remove a.png'))
    expect(screen.queryByTestId('blind')).toBeNull()
  })

  it('takes a pasted screenshot as an image, and pasted text as text', async () => {
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    const shot = new File(['png!'], '', { type: 'image/png' })
    await fireEvent.paste(box, { clipboardData: { files: [shot], types: ['Files'] } })
    await vi.waitFor(() => expect(screen.getByAltText('pasted image.png')).toBeTruthy())
    // Text copied with a picture (part of a web page) is text.
    await fireEvent.paste(box, { clipboardData: { files: [shot], types: ['text/plain', 'Files'] } })
    expect(screen.getAllByRole('img')).toHaveLength(1)
  })

  // WebKitGTK's paste event carries nothing for a picture alone (seen
  // under Xvfb with xclip -t image/png): the clipboard is read instead.
  it('reads a pasted picture from the clipboard when the paste carries no data', async () => {
    const read = vi.fn(async () => [{ types: ['image/png'], getType: async () => new Blob(['png!'], { type: 'image/png' }) }])
    Object.defineProperty(navigator, 'clipboard', { value: { read }, configurable: true })
    render(Composer, { running: false, disabled: false, onsend: vi.fn(), onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.paste(box, { clipboardData: { files: [], types: [] } })
    await vi.waitFor(() => expect(screen.getByAltText('pasted image.png')).toBeTruthy())
    await fireEvent.paste(box, { clipboardData: { files: [], types: ['text/plain'] } })
    expect(read).toHaveBeenCalledTimes(1) // text pastes as text
  })

  it('empties the box once the request is taken', async () => {
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'list my files' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    await vi.waitFor(() => expect(onsend).toHaveBeenCalled())
    await Promise.resolve()
    expect(box.value).toBe('')
  })
})

describe('Composer history', () => {
  const setup = () => {
    render(Composer, { running: false, disabled: false, onsend: async () => true, onstop: () => {}, earlier: ['list my files', 'summarize notes.txt\ninto two lines', 'summarize notes.txt\ninto two lines', 'git status'] })
    return screen.getByLabelText('Message') as HTMLTextAreaElement
  }
  const key = async (box: HTMLTextAreaElement, k: string) => {
    box.setSelectionRange(box.selectionStart, box.selectionStart)
    await fireEvent.keyDown(box, { key: k })
  }

  it('brings back earlier requests with the arrows, then what was typed', async () => {
    const box = setup()
    await key(box, 'ArrowUp')
    expect(box.value).toBe('git status')
    await key(box, 'ArrowUp')
    expect(box.value).toBe('summarize notes.txt\ninto two lines') // the repeat once
    box.setSelectionRange(0, 0) // up from the first line of a request of two
    await key(box, 'ArrowUp')
    expect(box.value).toBe('list my files')
    await key(box, 'ArrowUp')
    expect(box.value).toBe('list my files') // the oldest stays
    await key(box, 'ArrowDown')
    expect(box.value).toBe('summarize notes.txt\ninto two lines')
    await key(box, 'ArrowDown')
    await key(box, 'ArrowDown')
    expect(box.value).toBe('')
  })

  it('moves in the text, not the history, once the text is the user\'s', async () => {
    const box = setup()
    await fireEvent.input(box, { target: { value: 'a draft' } })
    await key(box, 'ArrowUp')
    expect(box.value).toBe('a draft')
    await fireEvent.input(box, { target: { value: '' } })
    await key(box, 'ArrowUp')
    await key(box, 'ArrowUp')
    expect(box.value).toBe('summarize notes.txt\ninto two lines')
    await key(box, 'ArrowUp') // the caret at the end, on the second line: up moves in the text
    expect(box.value).toBe('summarize notes.txt\ninto two lines')
    await fireEvent.input(box, { target: { value: 'git status --short' } })
    await key(box, 'ArrowUp')
    expect(box.value).toBe('git status --short')
  })
})

describe('Composer prompts', () => {
  const prompts = [
    { server: 'every', name: 'simple-prompt', title: 'Simple', description: 'no arguments', arguments: [] },
    {
      server: 'every',
      name: 'args-prompt',
      title: 'Arguments Prompt',
      arguments: [
        { name: 'city', description: 'Name of the city', required: true },
        { name: 'state', title: 'State' },
      ],
    },
  ] as unknown as PromptChoice[]

  it('puts a prompt without arguments in the box, unsent', async () => {
    const onsend = vi.fn(async () => true)
    const useprompt = vi.fn(async () => 'Say hello')
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {}, prompts, useprompt })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/simp' } })
    expect(screen.getByRole('button', { name: /\/simple-prompt/ })).toBeTruthy()
    expect(screen.queryByRole('button', { name: /\/args-prompt/ })).toBeNull()
    await fireEvent.keyDown(box, { key: 'Enter' })
    await vi.waitFor(() => expect(box.value).toBe('Say hello'))
    expect(useprompt).toHaveBeenCalledWith('every', 'simple-prompt', {})
    expect(onsend).not.toHaveBeenCalled()
  })

  it('asks for the arguments, sends only those given, and shows a refusal', async () => {
    const useprompt = vi.fn(async (_s: string, _n: string, args: Record<string, string>) => {
      if (args.city === 'Nowhere') throw new Error('no such city')
      return `What's weather in ${args.city}?`
    })
    render(Composer, { running: false, disabled: false, onsend: () => {}, onstop: () => {}, prompts, useprompt })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/' } })
    await fireEvent.keyDown(box, { key: 'ArrowDown' })
    await fireEvent.keyDown(box, { key: 'Enter' })
    const city = (await screen.findByLabelText('city (required)')) as HTMLInputElement
    await fireEvent.input(city, { target: { value: 'Nowhere' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Put in the message box' }))
    expect((await screen.findByRole('alert')).textContent).toContain('no such city')
    await fireEvent.input(city, { target: { value: 'Oslo' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Put in the message box' }))
    await vi.waitFor(() => expect(box.value).toBe("What's weather in Oslo?"))
    expect(useprompt).toHaveBeenLastCalledWith('every', 'args-prompt', { city: 'Oslo' })
    expect(screen.queryByLabelText('city (required)')).toBeNull()
  })

  it("offers the server's values for an argument as it is typed", async () => {
    const completeprompt = vi.fn(async (_s: string, _n: string, _a: string, typed: string) => ['Oslo', 'Osaka', 'Ottawa'].filter((c) => c.startsWith(typed)))
    render(Composer, { running: false, disabled: false, onsend: () => {}, onstop: () => {}, prompts, useprompt: async () => '', completeprompt })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/args' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    const state = (await screen.findByLabelText('State')) as HTMLInputElement
    await fireEvent.input(state, { target: { value: 'x' } })
    const city = screen.getByLabelText('city (required)') as HTMLInputElement
    await fireEvent.input(city, { target: { value: 'Os' } })
    await vi.waitFor(() => expect(completeprompt).toHaveBeenLastCalledWith('every', 'args-prompt', 'city', 'Os', { state: 'x' }))
    const list = document.getElementById(city.getAttribute('list')!)!
    await vi.waitFor(() => expect([...list.querySelectorAll('option')].map((o) => o.value)).toEqual(['Oslo', 'Osaka']))
  })

  it("lists a saved command as its folder's, and fills it with what is typed for it", async () => {
    const saved = [
      { server: '', from: 'this folder', file: '/w/.claude/commands/review.md', name: 'review', description: 'Review the staged changes', arguments: [{ name: 'arguments', title: 'Arguments', description: '[focus]' }] },
      ...prompts,
    ] as unknown as PromptChoice[]
    const useprompt = vi.fn(async (_s: string, _n: string, args: Record<string, string>) => `Review the staged changes, looking hardest at ${args.arguments}.`)
    render(Composer, { running: false, disabled: false, onsend: () => {}, onstop: () => {}, prompts: saved, useprompt })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/rev' } })
    const item = screen.getByRole('button', { name: /\/review/ })
    expect(item.textContent).toContain('this folder')
    expect(item.querySelector('.from')?.getAttribute('title')).toBe('/w/.claude/commands/review.md')
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(await screen.findByText('from this folder commands')).toBeTruthy()
    const args = screen.getByLabelText('Arguments') as HTMLInputElement
    expect(args.placeholder).toBe('[focus]')
    await fireEvent.input(args, { target: { value: 'error handling' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Put in the message box' }))
    await vi.waitFor(() => expect(box.value).toBe('Review the staged changes, looking hardest at error handling.'))
    expect(useprompt).toHaveBeenCalledWith('', 'review', { arguments: 'error handling' })
  })

  it('sends a request that starts with / when no prompt matches', async () => {
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {}, prompts, useprompt: async () => '' })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/etc/hosts' } })
    expect(screen.getByText(/No saved command or prompt of your MCP servers matches/)).toBeTruthy()
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(onsend).toHaveBeenCalledWith('/etc/hosts', [])
  })
})

describe('Composer resources', () => {
  const offered = [
    { server: 'notes', uri: 'notes://shopping', name: 'Shopping list', mime_type: 'text/plain', description: 'what to buy' },
    { server: 'notes', uri: 'notes://photo', name: 'photo', mime_type: 'image/png', description: '' },
  ] as ResourceChoice[]

  it('lists what the servers offer after "@", reads the one picked into the box in place of the mention', async () => {
    const resources = vi.fn(async () => offered)
    const useresource = vi.fn(async (server: string, uri: string) => `From ${uri} of MCP server ${server}:\n\`\`\`\nbuy shrimp\n\`\`\`\n`)
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {}, resources, useresource })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    // An address is no mention.
    await fireEvent.input(box, { target: { value: 'write to me@exam' } })
    expect(resources).not.toHaveBeenCalled()
    await fireEvent.input(box, { target: { value: 'sort this list @shop' } })
    const list = await screen.findByRole('list', { name: 'Resources of your MCP servers' })
    expect(list.textContent).toContain('@Shopping list')
    expect(list.textContent).not.toContain('photo')
    expect(resources).toHaveBeenCalledTimes(1)
    await fireEvent.keyDown(box, { key: 'Enter' })
    await vi.waitFor(() => expect(box.value).toBe('sort this list From notes://shopping of MCP server notes:\n```\nbuy shrimp\n```\n'))
    expect(useresource).toHaveBeenCalledWith('notes', 'notes://shopping')
    expect(onsend).not.toHaveBeenCalled() // read before it is sent
    expect(screen.queryByRole('list', { name: 'Resources of your MCP servers' })).toBeNull()
  })

  it('says what failed, and Escape closes the list leaving the words as typed', async () => {
    const resources = vi.fn(async () => offered)
    const useresource = vi.fn(async () => {
      throw new Error('read notes://photo on MCP server notes: gone')
    })
    render(Composer, { running: false, disabled: false, onsend: vi.fn(), onstop: () => {}, resources, useresource })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'look at @pho' } })
    await fireEvent.click(await screen.findByRole('button', { name: /@photo/ }))
    expect((await screen.findByRole('alert')).textContent).toContain('gone')
    expect(box.value).toBe('look at @pho')
    await fireEvent.keyDown(box, { key: 'Escape' })
    expect(box.value).toBe('look at @pho')
    expect(screen.queryByRole('list', { name: 'Resources of your MCP servers' })).toBeNull()
    await fireEvent.input(box, { target: { value: 'look at @phot' } })
    expect(await screen.findByRole('list', { name: 'Resources of your MCP servers' })).toBeTruthy()
    await fireEvent.input(box, { target: { value: 'look at @nothing-like-it' } })
    expect((await screen.findByText(/No resource of your MCP servers matches/)).textContent).toContain('nothing-like-it')
  })
})
