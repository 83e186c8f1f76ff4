import { tick } from 'svelte'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../wailsjs/go/desktop/System', () => ({
  Info: vi.fn(async () => ({ version: 'v0', data_dir: '/data', ollama_host: 'http://h:1' })),
  OllamaStatus: vi.fn(async () => ({ host: 'http://h:1', reachable: false, foreign: false, version: '', models: [], error: 'down' })),
  Refresh: vi.fn(),
  WindowFocus: vi.fn(async () => {}),
  WindowResized: vi.fn(async () => {}),
}))
const windowEvents: Record<string, (data: unknown) => void> = {}
vi.mock('../wailsjs/runtime/runtime', () => ({
  EventsOn: vi.fn((name: string, cb: (data: unknown) => void) => {
    windowEvents[name] = cb
    return () => {}
  }),
}))
vi.mock('../wailsjs/go/desktop/Chat', () => ({
  Send: vi.fn(),
  Stop: vi.fn(),
  Models: vi.fn(async () => []),
  DefaultWorkspace: vi.fn(async () => '/home/u'),
  Instructions: vi.fn(async () => ({ files: [{ path: '/home/u/AGENTS.md', bytes: 40, scope: 'folder', used: 40 }], warnings: [] })),
  OpenInstructions: vi.fn(async () => {}),
  WorkspaceNotes: vi.fn(async () => []),
  ChangedRuns: vi.fn(async () => []),
  RedoPlan: vi.fn(async () => ({ run: 0, files: [], untracked: [], changes: false, taught: [], redo: true })),
}))
vi.mock('../wailsjs/go/desktop/Approvals', () => ({ Resolve: vi.fn() }))
vi.mock('../wailsjs/go/desktop/FirstRun', () => ({
  Ollama: vi.fn(async () => ({ installed: true, path: '/usr/bin/ollama', local: true, started: false, install: [], log: [] })),
  StartOllama: vi.fn(),
  Models: vi.fn(async () => []),
  RecommendedModels: vi.fn(async () => []),
  FirstWorkspace: vi.fn(async () => '/home/u/Shrimp'),
  CreateWorkspace: vi.fn(async (d: string) => d),
}))
vi.mock('../wailsjs/go/desktop/Procedures', () => ({
  List: vi.fn(async () => [
    { id: 'p1', trigger: 'tidy my notes', triggers: ['tidy my notes'], tools: ['fs.list', 'fs.old'], uses: 2, demerits: 0, status: 'stale', missing_tools: ['fs.old'], sessions: [], last_used: '2026-11-30T00:00:00Z', score: 0 },
  ]),
  Search: vi.fn(async () => []),
  Forget: vi.fn(),
  Restore: vi.fn(),
}))
vi.mock('../wailsjs/go/desktop/Sessions', () => ({
  List: vi.fn(async () => ({ sessions: [], total: 0 })),
  Search: vi.fn(async () => ({ sessions: [], total: 0 })),
  Events: vi.fn(async () => []),
  Open: vi.fn(),
  Export: vi.fn(),
  Delete: vi.fn(),
  Usage: vi.fn(async () => ({ chart: { time: [], in: [], out: [] }, recent: [], models: [] })),
}))
vi.mock('../wailsjs/go/desktop/Models', () => ({ List: vi.fn(async () => []), Pull: vi.fn(), CancelPull: vi.fn(), Delete: vi.fn() }))
// The defaults for new chats as the data directory keeps them.
const stored = vi.hoisted(() => ({ model: '', approve: 'ask', workspace: '' }))
vi.mock('../wailsjs/go/desktop/Settings', () => ({
  ChatDefaults: vi.fn(async () => ({ ...stored })),
  SetChatDefaults: vi.fn(async (d: typeof stored) => void Object.assign(stored, d)),
  Rules: vi.fn(async () => [
    { workspace: '/home/u/project', tool: 'fs.write', rule: 'always', updated: '' },
    { workspace: '', tool: 'shell.run', rule: 'always', call: 'make test', updated: '' },
  ]),
  SetRule: vi.fn(async () => {}),
  NumCtx: vi.fn(async () => 0),
  SetNumCtx: vi.fn(async () => {}),
  ModelParams: vi.fn(async () => ({
    specs: [
      { name: 'temperature', int: false, min: 0, max: 2, about: 'how freely each token is chosen' },
      { name: 'seed', int: true, min: -2147483648, max: 2147483647, about: 'the same seed gives the same answer' },
    ],
    set: {},
    modelfile: { temperature: 0.6 },
    note: '',
  })),
  SetModelParams: vi.fn(async () => ({ temperature: 0.2 })),
  IdleTimeout: vi.fn(async () => '5m0s'),
  SetIdleTimeout: vi.fn(async (v: string) => v),
  KeepAlive: vi.fn(async () => ''),
  SetKeepAlive: vi.fn(async (v: string) => v),
  Think: vi.fn(async () => ''),
  SetThink: vi.fn(async (v: string) => v),
  EmbedModel: vi.fn(async () => ''),
  SetEmbedModel: vi.fn(async (v: string) => v),
  EmbedStatus: vi.fn(async () => ({ model: '', wordings: 0, embedded: 0, in_use: false, needed: 20, pending: 0, failed: 0, retry: '', error: '' })),
  MaxTools: vi.fn(async () => 0),
  MaxTurns: vi.fn(async () => ({ turns: 25, default: 25, most: 500, from_env: false })),
  SetMaxTurns: vi.fn(async (n: number) => ({ turns: n || 25, default: 25, most: 500, from_env: false })),
  Diagnostics: vi.fn(async () => [
    { check: 'ollama', status: 'fail', detail: 'no Ollama answers at http://h:1', fix: 'install it: curl -fsSL https://ollama.com/install.sh | sh' },
    { check: 'procedure index', status: 'warn', detail: 'the search index holds 1 of 2 procedures', fix: 'rebuild it' },
    { check: 'disk space', status: 'pass', detail: '50 GiB free', fix: '' },
  ]),
  RebuildIndex: vi.fn(async () => {}),
  SetMaxTools: vi.fn(async () => {}),
  ShellSandbox: vi.fn(async () => ({ on: true, wanted: true, detail: 'shell commands write only in the workspace and the temporary folders (Landlock ABI 7)' })),
  SetShellSandbox: vi.fn(async (on: boolean) =>
    on ? { on: true, wanted: true, detail: 'confined' } : { on: false, wanted: false, detail: 'switched off in Settings: approved commands can change anything you can' },
  ),
}))

import App from './App.svelte'
import { kept } from './lib/state/kept.svelte'
import { Diagnostics, EmbedStatus, ModelParams, RebuildIndex, SetEmbedModel, SetKeepAlive, SetMaxTurns, SetModelParams, SetShellSandbox, SetThink } from '../wailsjs/go/desktop/Settings'
import { OpenInstructions } from '../wailsjs/go/desktop/Chat'
import { OllamaStatus, WindowFocus } from '../wailsjs/go/desktop/System'
import { Models as ModelChoices } from '../wailsjs/go/desktop/FirstRun'
import { List as ListSessions, Open as OpenSession } from '../wailsjs/go/desktop/Sessions'

describe('App shell', () => {
  // The views' searches are kept for as long as the window is open: each test is a new window.
  beforeEach(() => {
    for (const k of Object.keys(kept)) delete kept[k]
    Object.assign(stored, { model: '', approve: 'ask', workspace: '' })
  })

  it('shows the sidebar views and switches the main pane', async () => {
    stored.workspace = '/home/u'
    render(App)
    for (const name of ['Chat', 'Timeline', 'Procedures', 'Sessions', 'Settings']) {
      expect(screen.getByRole('button', { name })).toBeTruthy()
    }
    expect(await screen.findByText('Ollama is not running')).toBeTruthy()
    // The About box shows the version the binary was built as.
    await fireEvent.click(screen.getByRole('button', { name: 'About Shrimp' }))
    await vi.waitFor(() => expect(screen.getByTestId('about-version').textContent).toBe('v0'))
    // The workspace's AGENTS.md is listed and opens on a click.
    const instr = await screen.findByRole('button', { name: 'u/AGENTS.md' }, { timeout: 3000 })
    await fireEvent.click(instr)
    expect(vi.mocked(OpenInstructions)).toHaveBeenCalledWith('/home/u', '/home/u/AGENTS.md')
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    expect((await screen.findByTestId('settings-datadir')).textContent).toBe('/data')
    const ruleRows = await screen.findAllByTestId('rule-row')
    expect(ruleRows[0].textContent).toContain('fs.write: always')
    expect(ruleRows[1].textContent!.replace(/\s+/g, ' ')).toContain('shell.run: always for make test in every workspace')
    expect(screen.getAllByTestId('rule-scope').map((e) => e.textContent)).toEqual(['/home/u/project', 'every workspace'])
    expect((screen.getByTestId('settings-idle') as HTMLInputElement).value).toBe('5m0s')
    // How long Ollama keeps the model loaded: Ollama's own at first, then
    // chosen and saved.
    const keep = screen.getByTestId('settings-keep') as HTMLSelectElement
    expect(keep.value).toBe('')
    await fireEvent.change(keep, { target: { value: '4h0m0s' } })
    expect(vi.mocked(SetKeepAlive)).toHaveBeenCalledWith('4h0m0s')
    expect(await screen.findByText('Applied and saved: from the next request.')).toBeTruthy()
    // Thinking: the model's own at first, then off for faster answers.
    const think = screen.getByTestId('settings-think') as HTMLSelectElement
    expect(think.value).toBe('')
    await fireEvent.change(think, { target: { value: 'off' } })
    expect(vi.mocked(SetThink)).toHaveBeenCalledWith('off')
    expect(await screen.findByText(/Applied and saved: from the next request \(a terminal conversation: \/think\)/)).toBeTruthy()
    // The embedding model: set, then refused with the backend's reason.
    const embed = screen.getByTestId('settings-embed') as HTMLInputElement
    await fireEvent.input(embed, { target: { value: 'nomic-embed-text' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Set embedding model' }))
    expect(vi.mocked(SetEmbedModel)).toHaveBeenCalledWith('nomic-embed-text')
    expect(await screen.findByText(/computed in the background/)).toBeTruthy()
    expect(screen.queryByTestId('settings-embed-status')).toBeNull() // nothing set when the view opened
    vi.mocked(EmbedStatus).mockResolvedValue({ model: 'nomic-embed-text', wordings: 30, embedded: 30, in_use: true, needed: 20, pending: 0, failed: 0, retry: '', error: '' } as never)
    await fireEvent.click(screen.getByRole('button', { name: 'Set embedding model' }))
    expect((await screen.findByTestId('settings-embed-status')).textContent).toContain('recall compares meanings with nomic-embed-text (30 of 30')
    vi.mocked(SetEmbedModel).mockRejectedValueOnce('"nope" is not installed: run `ollama pull nope`')
    await fireEvent.input(embed, { target: { value: 'nope' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Set embedding model' }))
    expect(await screen.findByText(/is not installed/)).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Settings' }).getAttribute('aria-current')).toBe('page')
    // The shell sandbox: on, with what it means; switched off, with what that costs.
    const box = (await screen.findByTestId('settings-sandbox')) as HTMLInputElement
    expect(box.checked).toBe(true)
    expect(screen.getByTestId('settings-sandbox-detail').textContent).toContain('write only in the workspace')
    await fireEvent.click(box)
    expect(vi.mocked(SetShellSandbox)).toHaveBeenCalledWith(false)
    await vi.waitFor(() => expect(screen.getByTestId('settings-sandbox-detail').textContent).toContain('⚠ Switched off in Settings'))
    // Diagnostics: the doctor's checks with their fixes; the index is rebuilt from here.
    await fireEvent.click(screen.getByRole('button', { name: 'Run checks' }))
    const rows = await screen.findAllByTestId('check-row')
    expect(rows.map((r) => r.dataset.status)).toEqual(['fail', 'warn', 'pass'])
    expect(rows[0].textContent).toContain('→ install it')
    expect(rows[2].textContent).not.toContain('→')
    await fireEvent.click(screen.getByRole('button', { name: 'Rebuild index' }))
    expect(vi.mocked(RebuildIndex)).toHaveBeenCalled()
    await vi.waitFor(() => expect(vi.mocked(Diagnostics)).toHaveBeenCalledTimes(2))
    await fireEvent.click(screen.getByRole('button', { name: 'Procedures' }))
    expect((await screen.findByTestId('procedure-row')).textContent).toContain('stale: fs.old missing')
  })

  it('never offers an embedding model for chat, and starts with one that can call tools', async () => {
    stored.workspace = '/home/u'
    vi.mocked(OllamaStatus).mockResolvedValueOnce({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['all-minilm:latest', 'qwen3:4b'], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([
      { name: 'all-minilm:latest', tools: false, embedding: true, checked: true },
      { name: 'qwen3:4b', tools: true, embedding: false, checked: true, trained: 4096 },
    ] as never)
    render(App)
    const picker = (await screen.findByRole('combobox', { name: 'Model' })) as HTMLSelectElement
    await vi.waitFor(() => expect(picker.value).toBe('qwen3:4b'))
    const minilm = Array.from(picker.options).find((o) => o.value === 'all-minilm:latest')!
    expect(minilm.disabled).toBe(true)
    expect(minilm.textContent).toContain('embedding model')
    // Nor in Settings, as a default for new chats or a context size.
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    const ctx = (await screen.findByRole('combobox', { name: 'Model for context size' })) as HTMLSelectElement
    await vi.waitFor(() => expect(Array.from(ctx.options).map((o) => o.value)).toEqual(['qwen3:4b']))
    const defaults = screen.getByRole('combobox', { name: 'Default model' }) as HTMLSelectElement
    expect(Array.from(defaults.options).map((o) => o.value)).toEqual(['', 'qwen3:4b'])
    // A context size above what the model was trained for is said to be
    // more than Ollama gives it.
    expect(screen.queryByTestId('ctx-over-trained')).toBeNull()
    await fireEvent.input(screen.getByRole('spinbutton', { name: 'num_ctx' }), { target: { value: '16384' } })
    expect((await screen.findByTestId('ctx-over-trained')).textContent).toContain('qwen3:4b was trained for 4096 tokens')
  })

  it('sets the turns a request may take, saying the default and what SHRIMP_MAX_TURNS does', async () => {
    render(App)
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    const turns = (await screen.findByRole('spinbutton', { name: 'Turns per request' })) as HTMLInputElement
    await vi.waitFor(() => expect(turns.value).toBe('25'))
    const form = turns.closest('form')!
    expect(form.textContent).toContain('empty or 0: 25')
    await fireEvent.input(turns, { target: { value: '60' } })
    await fireEvent.submit(form)
    expect(vi.mocked(SetMaxTurns)).toHaveBeenCalledWith(60)
    await vi.waitFor(() => expect(form.textContent).toContain('Saved: applies from the next request.'))
    vi.mocked(SetMaxTurns).mockResolvedValueOnce({ turns: 8, default: 25, most: 500, from_env: true } as never)
    await fireEvent.submit(form)
    await vi.waitFor(() => expect(form.textContent).toContain('8, set by SHRIMP_MAX_TURNS'))
  })
  it("sets a model's sampling, showing its Modelfile's values in empty boxes", async () => {
    vi.mocked(OllamaStatus).mockResolvedValue({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['qwen3:4b'], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([{ name: 'qwen3:4b', tools: true, embedding: false, checked: true, trained: 40960 }] as never)
    try {
      render(App)
      await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
      const temperature = (await screen.findByRole('textbox', { name: 'temperature' })) as HTMLInputElement
      await vi.waitFor(() => expect(temperature.placeholder).toBe('0.6 (Modelfile)'))
      expect(vi.mocked(ModelParams)).toHaveBeenCalledWith('qwen3:4b')
      expect((screen.getByRole('textbox', { name: 'seed' }) as HTMLInputElement).placeholder).toBe('Ollama default')
      await fireEvent.input(temperature, { target: { value: '0.2' } })
      const section = screen.getByTestId('sampling')
      await fireEvent.click(Array.from(section.querySelectorAll('button')).find((b) => b.textContent === 'Save')!)
      expect(vi.mocked(SetModelParams)).toHaveBeenCalledWith('qwen3:4b', { temperature: '0.2', seed: '' })
      await vi.waitFor(() => expect(section.textContent).toContain('Saved: from the next request.'))
      // A value Go refuses is said, and nothing is claimed saved.
      vi.mocked(SetModelParams).mockRejectedValueOnce('temperature 9 is outside 0 to 2')
      await fireEvent.input(temperature, { target: { value: '9' } })
      await fireEvent.click(Array.from(section.querySelectorAll('button')).find((b) => b.textContent === 'Save')!)
      expect((await screen.findByRole('alert')).textContent).toContain('temperature 9 is outside 0 to 2')
      expect(section.textContent).not.toContain('Saved')
    } finally {
      vi.mocked(OllamaStatus).mockResolvedValue({ host: 'http://h:1', reachable: false, foreign: false, version: '', models: [], error: 'down' })
    }
  })

  // gemma3, llava and qwen2.5vl see images and have no tool calling in
  // their templates: the window starts with a model that calls tools, but
  // one the user picks stays picked (it used to be switched back at once).
  it('keeps a model without tool calling that the user picks, and says what it is', async () => {
    stored.workspace = '/home/u'
    vi.mocked(OllamaStatus).mockResolvedValueOnce({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['gemma3:4b', 'qwen3:4b'], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([
      { name: 'gemma3:4b', tools: false, embedding: false, checked: true, sees: true },
      { name: 'qwen3:4b', tools: true, embedding: false, checked: true, sees: false },
    ] as never)
    render(App)
    const picker = (await screen.findByRole('combobox', { name: 'Model' })) as HTMLSelectElement
    await vi.waitFor(() => expect(picker.value).toBe('qwen3:4b'))
    expect(Array.from(picker.options).map((o) => o.textContent)).toEqual(['gemma3:4b (sees images, tools in its prompt)', 'qwen3:4b'])
    await fireEvent.change(picker, { target: { value: 'gemma3:4b' } })
    await tick() // the effects that would switch it back have run
    await tick()
    expect(picker.value).toBe('gemma3:4b')
  })

  it('never starts with an embedding model when none calls tools', async () => {
    stored.workspace = '/home/u'
    vi.mocked(OllamaStatus).mockResolvedValue({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['all-minilm:latest', 'gemma3:4b'], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([
      { name: 'all-minilm:latest', tools: false, embedding: true, checked: true },
      { name: 'gemma3:4b', tools: false, embedding: false, checked: true, sees: true },
    ] as never)
    render(App)
    const picker = (await screen.findByRole('combobox', { name: 'Model' })) as HTMLSelectElement
    await vi.waitFor(() => expect(picker.value).toBe('gemma3:4b'))
  })

  it('offers to chat anyway with a model that cannot call tools when none can', async () => {
    stored.workspace = '/home/u'
    vi.mocked(OllamaStatus).mockResolvedValue({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['gemma3:4b'], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([{ name: 'gemma3:4b', tools: false, embedding: false, checked: true, sees: true }] as never)
    render(App)
    const anyway = await screen.findByRole('button', { name: 'Chat with gemma3:4b anyway' })
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).disabled).toBe(true)
    await fireEvent.click(anyway)
    await vi.waitFor(() => expect(screen.queryByTestId('model-setup')).toBeNull())
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).disabled).toBe(false)
    expect(stored.model).toBe('gemma3:4b') // kept: the next start chats with it too
  })

  it('takes the defaults for new chats from the data directory, moving those an older Shrimp kept in localStorage', async () => {
    localStorage.setItem('shrimp.defaultModel', 'qwen3:4b')
    localStorage.setItem('shrimp.defaultApprove', 'read')
    localStorage.setItem('shrimp.workspace', '/home/old')
    stored.workspace = '/home/kept' // the data directory's own wins
    render(App)
    await vi.waitFor(() => expect(stored).toEqual({ model: 'qwen3:4b', approve: 'read', workspace: '/home/kept' }))
    expect(['shrimp.defaultModel', 'shrimp.defaultApprove', 'shrimp.workspace'].map((k) => localStorage.getItem(k))).toEqual([null, null, null])
    const folder = (await screen.findByRole('combobox', { name: 'Workspace folder' })) as HTMLInputElement
    await vi.waitFor(() => expect(folder.value).toBe('/home/kept'))
    const mode = screen.getByRole('combobox', { name: 'Approval mode' }) as HTMLSelectElement
    await vi.waitFor(() => expect(mode.value).toBe('read'))
    // Settings saves a new default there too.
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    await fireEvent.change(await screen.findByRole('combobox', { name: 'Default approval mode' }), { target: { value: 'none' } })
    await vi.waitFor(() => expect(stored.approve).toBe('none'))
    expect(stored.model).toBe('qwen3:4b')
  })

  it('goes on with an opened session in the folder it worked in', async () => {
    stored.workspace = '/home/u'
    const session = { id: 's1', title: 'tidy the notes', model: 'qwen3:4b', workspace: '/home/u/project', created: '2026-12-01T10:00:00Z', updated: '2026-12-01T10:00:00Z', prompt_tokens: 1, completion_tokens: 1 }
    vi.mocked(ListSessions).mockResolvedValueOnce({ sessions: [session], total: 1 } as never)
    vi.mocked(OpenSession).mockResolvedValue({ session, events: [{ seq: 1, session: 's1', type: 'agent:run-started', time: '', data: JSON.stringify({ text: 'tidy the notes' }) }] } as never)
    render(App)
    const folder = (await screen.findByRole('combobox', { name: 'Workspace folder' })) as HTMLInputElement
    await vi.waitFor(() => expect(folder.value).toBe('/home/u'))
    await fireEvent.click(screen.getByRole('button', { name: 'Sessions' }))
    await fireEvent.click(await screen.findByRole('button', { name: 'Open' }))
    const reopened = (await screen.findByRole('combobox', { name: 'Workspace folder' })) as HTMLInputElement
    await vi.waitFor(() => expect(reopened.value).toBe('/home/u/project'))
    expect(stored.workspace).toBe('/home/u') // the folder new chats start in is not changed
  })

  it('switches views and starts a new chat from the keyboard', async () => {
    render(App)
    await screen.findByRole('combobox', { name: 'Workspace folder' })
    await fireEvent.keyDown(window, { key: '3', ctrlKey: true })
    await vi.waitFor(() => expect(document.querySelector('[data-view="procedures"]')?.getAttribute('aria-current')).toBe('page'))
    await fireEvent.keyDown(window, { key: ',', ctrlKey: true })
    await vi.waitFor(() => expect(document.querySelector('[data-view="settings"]')?.getAttribute('aria-current')).toBe('page'))
    await fireEvent.keyDown(window, { key: '3', ctrlKey: true, altKey: true }) // not a view's key
    await fireEvent.keyDown(window, { key: '3', ctrlKey: true, isComposing: true }) // an input method's
    expect(document.querySelector('[data-view="settings"]')?.getAttribute('aria-current')).toBe('page')
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true })
    await vi.waitFor(() => expect(document.querySelector('[data-view="chat"]')?.getAttribute('aria-current')).toBe('page'))
    expect(screen.getByRole('button', { name: /^Timeline/ }).getAttribute('title')).toBe('Timeline (Ctrl+2)')
  })

  it('keeps a draft in the message box while another view is shown', async () => {
    render(App)
    const box = (await screen.findByLabelText('Message')) as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'a long request, half written' } })
    await fireEvent.click(screen.getByRole('button', { name: /^Procedures/ }))
    await vi.waitFor(() => expect(screen.queryByLabelText('Message')).toBeNull())
    await fireEvent.click(screen.getByRole('button', { name: /^Chat/ }))
    expect(((await screen.findByLabelText('Message')) as HTMLTextAreaElement).value).toBe('a long request, half written')
    // So does a search in another view.
    await fireEvent.click(screen.getByRole('button', { name: /^Sessions/ }))
    await fireEvent.input(await screen.findByLabelText('Search sessions'), { target: { value: 'notes' } })
    await fireEvent.click(screen.getByRole('button', { name: /^Chat/ }))
    await screen.findByLabelText('Message')
    await fireEvent.click(screen.getByRole('button', { name: /^Sessions/ }))
    expect(((await screen.findByLabelText('Search sessions')) as HTMLInputElement).value).toBe('notes')
  })

  // A session goes on with its model; one a terminal named without its tag
  // ("qwen3") with the model as Ollama lists it, not the default.
  it.each([
    ['qwen3:4b', 'qwen3:4b'],
    ['qwen3', 'qwen3:latest'],
  ])('goes on with an opened session whose model was %s with %s', async (used, listed) => {
    stored.workspace = '/home/u'
    vi.mocked(OllamaStatus).mockResolvedValueOnce({ host: 'http://h:1', reachable: true, foreign: false, version: '0.24.0', models: ['llama3.2:3b', listed], error: '' })
    vi.mocked(ModelChoices).mockResolvedValue([
      { name: 'llama3.2:3b', tools: true, embedding: false, checked: true },
      { name: listed, tools: true, embedding: false, checked: true },
    ] as never)
    const session = { id: 's2', title: 'tidy the notes', model: used, workspace: '/home/u/project', created: '2026-12-01T10:00:00Z', updated: '2026-12-01T10:00:00Z', prompt_tokens: 1, completion_tokens: 1 }
    vi.mocked(ListSessions).mockResolvedValueOnce({ sessions: [session], total: 1 } as never)
    vi.mocked(OpenSession).mockResolvedValue({ session, events: [{ seq: 1, session: 's2', type: 'agent:run-started', time: '', data: JSON.stringify({ text: 'tidy the notes' }) }] } as never)
    render(App)
    const picker = (await screen.findByRole('combobox', { name: 'Model' })) as HTMLSelectElement
    await vi.waitFor(() => expect(picker.value).toBe('llama3.2:3b'))
    await fireEvent.click(screen.getByRole('button', { name: 'Sessions' }))
    await fireEvent.click(await screen.findByRole('button', { name: 'Open' }))
    const reopened = (await screen.findByRole('combobox', { name: 'Model' })) as HTMLSelectElement
    await vi.waitFor(() => expect(reopened.value).toBe(listed))
    expect(stored.model).toBe('') // the default for new chats is not changed
  })

  it("shows another process's run in the timeline and answers none of its questions", async () => {
    render(App)
    await vi.waitFor(() => expect(windowEvents['shrimp:foreign-events']).toBeDefined())
    windowEvents['shrimp:foreign-events']([
      { seq: 1, session: 't1', type: 'agent:run-started', time: '2026-12-01T10:00:00Z', data: { text: 'from the terminal' } },
      { seq: 2, session: 't1', type: 'approval:requested', time: '2026-12-01T10:00:01Z', data: { id: 'c1', tool: 'shell.run', arguments: { command: 'rm -rf build' } } },
    ])
    windowEvents['shrimp:events']([{ seq: 1, session: 'w1', type: 'agent:run-started', time: '2026-12-01T10:00:02Z', data: { text: 'from the window' } }])
    await fireEvent.click(screen.getByRole('button', { name: 'Timeline' }))
    await vi.waitFor(() => expect(screen.getByText('3 of 3 events')).toBeTruthy())
    expect(screen.queryByTestId('approval-command')).toBeNull()
    expect(screen.queryByTestId('approval-args')).toBeNull()
  })

  it("lists another process's new session in the open Sessions view", async () => {
    render(App)
    await fireEvent.click(screen.getByRole('button', { name: 'Sessions' }))
    await vi.waitFor(() => expect(ListSessions).toHaveBeenCalled())
    const before = vi.mocked(ListSessions).mock.calls.length
    const session = { id: 't9', title: 'from the terminal', model: 'qwen3:4b', workspace: '/w', created: '2026-12-01T10:00:00Z', updated: '2026-12-01T10:00:00Z', prompt_tokens: 1, completion_tokens: 1 }
    vi.mocked(ListSessions).mockResolvedValueOnce({ sessions: [session], total: 1 } as never)
    await vi.waitFor(() => expect(windowEvents['shrimp:foreign-events']).toBeDefined())
    windowEvents['shrimp:foreign-events']([{ seq: 1, session: 't9', type: 'agent:run-started', time: '2026-12-01T10:00:00Z', data: { text: 'from the terminal' } }])
    expect(await screen.findByText('from the terminal', {}, { timeout: 30_000 })).toBeTruthy()
    expect(vi.mocked(ListSessions).mock.calls.length).toBeGreaterThan(before)
  })

  it('says whether it is in front, and opens the session of a clicked notification', async () => {
    const session = { id: 's7', title: 'tidy the notes', model: 'qwen3:4b', workspace: '/home/u/project', created: '2026-12-01T10:00:00Z', updated: '2026-12-01T10:00:00Z', prompt_tokens: 1, completion_tokens: 1 }
    vi.mocked(OpenSession).mockResolvedValue({ session, events: [{ seq: 1, session: 's7', type: 'agent:run-started', time: '', data: JSON.stringify({ text: 'tidy the notes' }) }] } as never)
    render(App)
    await vi.waitFor(() => expect(WindowFocus).toHaveBeenCalled())
    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    windowEvents['shrimp:show-session']('s7')
    await vi.waitFor(() => expect(OpenSession).toHaveBeenCalledWith('s7'))
    const folder = (await screen.findByRole('combobox', { name: 'Workspace folder' })) as HTMLInputElement
    await vi.waitFor(() => expect(folder.value).toBe('/home/u/project'))
  })
})
