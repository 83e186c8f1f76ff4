import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

vi.mock('../../../../wailsjs/go/desktop/Chat', () => ({
  Send: vi.fn(),
  Stop: vi.fn(),
  Models: vi.fn(async () => []),
  DefaultWorkspace: vi.fn(async () => '/w'),
  Instructions: vi.fn(async (ws: string) => instr[ws] ?? { files: [], warnings: [] }),
  WorkspaceNotes: vi.fn(async (ws: string) => notes[ws] ?? []),
  OpenInstructions: vi.fn(),
  PickWorkspace: vi.fn(),
  ChangedRuns: vi.fn(async (session: string) => changed[session] ?? []),
  UndoPlan: vi.fn(async () => plan),
  Undo: vi.fn(async (session: string, run: number) => undone(session, run)),
  UndoDiff: vi.fn(async () => '--- a/README.md\n+++ b/README.md\n-oops\n+# My project\n'),
  RedoPlan: vi.fn(async () => redoPlan),
  Redo: vi.fn(async () => redone()),
  RedoDiff: vi.fn(async () => '--- a/README.md\n+++ b/README.md\n-# My project\n+oops\n'),
}))

// What the workspace notes binding answers, by folder, set by the tests.
let notes: Record<string, string[]> = {}

// What the instructions binding answers, by folder.
const instr: Record<string, unknown> = {
  '/home/u/cursor-app': {
    files: [
      { path: '/home/u/cursor-app/.cursorrules', bytes: 20, used: 20, scope: 'rule', agent: 'Cursor' },
      { path: '/home/u/cursor-app/.cursor/rules/naming.mdc', bytes: 60, used: 60, scope: 'rule', agent: 'Cursor' },
      { path: '/home/u/cursor-app', bytes: 90, used: 90, scope: 'rules on request' },
      { path: '/home/u/cursor-app/AGENTS.md', bytes: 9, used: 9, scope: 'folder' },
    ],
    warnings: [],
  },
}

// What the undo bindings answer, set by the tests.
let changed: Record<string, { run: number; files: number }[]> = {}
let plan: unknown = null
let undone: (session: string, run: number) => unknown = () => null
let redoPlan: unknown = { run: 0, files: [], untracked: [], changes: false, taught: [], redo: true }
let redone: () => unknown = () => null

vi.mock('../../../../wailsjs/go/desktop/Procedures', () => ({ Forget: vi.fn(async () => ({})) }))
vi.mock('../../../../wailsjs/runtime/runtime', () => ({ EventsOn: vi.fn(() => () => {}) }))
vi.mock('../../../../wailsjs/go/desktop/Extensions', () => ({
  Prompts: vi.fn(async () => []),
  UsePrompt: vi.fn(),
  Commands: vi.fn(async (ws: string) =>
    ws === '/home/u/project' ? [{ server: '', from: 'this folder', file: '/home/u/project/.claude/commands/commit.md', name: 'commit', description: 'Write a commit message', arguments: [] }] : [],
  ),
  UseCommand: vi.fn(async (_ws: string, name: string) => `filled ${name}`),
}))
// Started with --model evil (SHRIMP_MODEL), no default chosen in Settings.
vi.mock('../../../../wailsjs/go/desktop/System', () => ({ Info: vi.fn(async () => ({ model: 'evil' })) }))
vi.mock('../../../../wailsjs/go/desktop/FirstRun', () => ({
  RecentWorkspaces: vi.fn(async () => [
    { path: '/home/u/site', sessions: 4 },
    { path: '/home/u/notes', sessions: 1 },
  ]),
}))

import ChatView from './ChatView.svelte'
import { Redo, RedoDiff, Send, Undo, UndoDiff, UndoPlan } from '../../../../wailsjs/go/desktop/Chat'
import { Forget } from '../../../../wailsjs/go/desktop/Procedures'
import { UseCommand } from '../../../../wailsjs/go/desktop/Extensions'
import { CHAT_PAGE, ChatState } from '../../state/chat.svelte'
import type { OllamaState } from '../../state/ollama.svelte'
import type { ModelsState } from '../../state/models.svelte'
import type { BusEvent } from '../../backend/types'

// renderChat shows the chat view of chat with one model installed and Ollama up.
function renderChat(chat: ChatState) {
  const ollama = { status: { reachable: true, foreign: false, models: ['m'], host: '' }, choices: [{ name: 'm', checked: true, tools: true }] } as unknown as OllamaState
  return render(ChatView, { ollama, chat, models: {} as ModelsState, onopenprocedure: vi.fn() })
}

// renderRunning shows a chat with a request running in session s1, and
// makes that session's events (seq counting up).
function renderRunning() {
  let seq = 0
  const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
  const chat = new ChatState()
  chat.workspace = '/w'
  chat.sessionId = 's1'
  renderChat(chat)
  chat.running = true
  return { chat, ev }
}

describe('ChatView', () => {
  it("lists a project's rules for other agents among the instructions in force", async () => {
    const chat = new ChatState()
    chat.workspace = '/home/u/cursor-app'
    renderChat(chat)
    const bar = await screen.findByTestId('instructions')
    const labels = [...bar.querySelectorAll('button.instr')].map((b) => b.textContent)
    expect(labels).toEqual(['cursor-app/.cursorrules', 'rules/naming.mdc', 'rules on request', 'cursor-app/AGENTS.md'])
    expect((bar.querySelector('button.instr') as HTMLButtonElement).title).toContain("(Cursor's rule)")
  })

  it('starts a chat with the model named at start-up when Settings names none', async () => {
    const chat = new ChatState()
    const ollama = {
      status: { reachable: true, foreign: false, models: ['m', 'evil:latest'], host: '' },
      choices: [
        { name: 'm', checked: true, tools: true },
        { name: 'evil:latest', checked: true, tools: true },
      ],
    } as unknown as OllamaState
    render(ChatView, { ollama, chat, models: {} as ModelsState, onopenprocedure: vi.fn() })
    await vi.waitFor(() => expect(chat.model).toBe('evil:latest'))
  })

  it('suggests the folders earlier sessions worked in for the workspace', async () => {
    renderChat(new ChatState())
    const input = screen.getByRole('combobox', { name: 'Workspace folder' })
    const list = document.getElementById(input.getAttribute('list') ?? '')
    await vi.waitFor(() => expect([...(list?.querySelectorAll('option') ?? [])].map((o) => `${o.value}: ${o.textContent}`)).toEqual(['/home/u/site: 4 sessions', '/home/u/notes: 1 session']))
    // and, with no folder chosen yet, the first chat's card offers them.
    expect(await screen.findByRole('button', { name: '/home/u/site 4 sessions' })).toBeTruthy()
  })

  it('opens a session of 2,000 runs on its newest items and shows earlier ones on request', async () => {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const events: BusEvent[] = []
    for (let r = 0; r < 2000; r++) {
      events.push(ev('agent:run-started', { text: `request ${r}` }), ev('agent:token', { text: `answer ${r}` }), ev('agent:run-ended', { status: 'responded' }))
    }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    const answers = () => screen.getAllByTestId('assistant').map((a) => a.textContent?.trim())
    expect(answers()).toHaveLength(CHAT_PAGE / 2)
    expect(answers().at(-1)).toBe('answer 1999')
    expect(screen.getByTestId('show-earlier').textContent).toBe(`Show earlier messages (${4000 - CHAT_PAGE} not shown)`)
    await fireEvent.click(screen.getByTestId('show-earlier'))
    expect(answers()).toHaveLength(CHAT_PAGE)
    expect(answers()[0]).toBe(`answer ${2000 - CHAT_PAGE}`)
    // A new chat starts empty, without the button.
    chat.reset()
    await vi.waitFor(() => expect(screen.queryByTestId('show-earlier')).toBeNull())
  })

  it('follows a streamed answer while the user is at the end, and stays put once they scroll up', async () => {
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.sessionId = 's1'
    const { container } = renderChat(chat)
    const list = container.querySelector('.messages') as HTMLDivElement
    const scrollTo = vi.fn()
    list.scrollTo = scrollTo as unknown as typeof list.scrollTo
    let seq = 0
    const token = (text: string) => chat.apply([{ seq: ++seq, session: 's1', type: 'agent:token', time: '', data: { text } }])
    chat.items.push({ kind: 'user', text: 'explain the build' })
    token('First words')
    await vi.waitFor(() => expect(scrollTo).toHaveBeenCalled())
    scrollTo.mockClear()
    token(' and more words') // the same answer grows: followed
    await vi.waitFor(() => expect(scrollTo).toHaveBeenCalled())
    // The user scrolls up to read.
    Object.defineProperty(list, 'scrollHeight', { configurable: true, value: 3000 })
    Object.defineProperty(list, 'clientHeight', { configurable: true, value: 500 })
    list.scrollTop = 200
    await fireEvent.scroll(list)
    scrollTo.mockClear()
    token(' still streaming')
    await new Promise((r) => setTimeout(r, 0))
    expect(scrollTo).not.toHaveBeenCalled()
    // A new request takes them to the end again.
    chat.items.push({ kind: 'user', text: 'and now?' })
    await vi.waitFor(() => expect(scrollTo).toHaveBeenCalled())
  })

  it('says what a quiet run waits for, unless a tool card says it runs', async () => {
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.model = 'm'
    chat.sessionId = 's1'
    chat.running = true
    chat.items.push({ kind: 'user', text: 'summarize the report' })
    chat.quietSince = Date.now() - 5000 // the request went out five seconds ago
    renderChat(chat)
    await vi.waitFor(() => expect(screen.getByTestId('waiting').textContent).toMatch(/^Waiting for m… \d+ s$/))
    // A tool runs: its card says so.
    chat.apply([{ seq: 1, session: 's1', type: 'agent:tool-call', time: '', data: { id: 'c1', name: 'shell.run', arguments: { command: 'make' } } }])
    chat.quietSince = Date.now() - 5000
    await vi.waitFor(() => expect(screen.queryByTestId('waiting')).toBeNull())
    // Its result is in: the model has the turn, and a moment later the chat says so.
    chat.apply([{ seq: 2, session: 's1', type: 'agent:tool-result', time: '', data: { id: 'c1', name: 'shell.run', output: 'ok', error: '', duration_ms: 3 } }])
    expect(screen.queryByTestId('waiting')).toBeNull()
    chat.quietSince = Date.now() - 5000
    await vi.waitFor(() => expect(screen.getByTestId('waiting')).toBeTruthy())
    chat.running = false
    await vi.waitFor(() => expect(screen.queryByTestId('waiting')).toBeNull())
  })

  it('says what to know of the workspace, and nothing for a plain project folder', async () => {
    notes = { '/home/u': ['This folder holds /home/u/.local/share/shrimp, which the shell sandbox cannot keep commands out of.'] }
    const chat = new ChatState()
    chat.workspace = '/home/u'
    chat.model = 'm'
    renderChat(chat)
    await vi.waitFor(() => expect(screen.getByTestId('workspace-notes').textContent).toContain('cannot keep commands out of'))
    chat.workspace = '/home/u/project'
    await vi.waitFor(() => expect(screen.queryByTestId('workspace-notes')).toBeNull())
    notes = {}
  })

  it("offers the workspace's saved commands after / and fills one in for that workspace", async () => {
    const chat = new ChatState()
    chat.workspace = '/home/u/project'
    chat.model = 'm'
    renderChat(chat)
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: '/com' } })
    const item = await screen.findByRole('button', { name: /\/commit/ })
    expect(item.textContent).toContain('this folder')
    await fireEvent.click(item)
    await vi.waitFor(() => expect(box.value).toBe('filled commit'))
    expect(UseCommand).toHaveBeenCalledWith('/home/u/project', 'commit', '')
    // Another folder has none of its commands.
    chat.workspace = '/home/u/other'
    await fireEvent.input(box, { target: { value: '/com' } })
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: /\/commit/ })).toBeNull())
  })

  it("offers to undo a request's file changes, shows what it would do, and says what was done", async () => {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const events = [
      ev('agent:run-started', { text: 'read the notes' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('agent:run-started', { text: 'tidy the project' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.write', arguments: { path: 'README.md' } }),
      ev('agent:run-ended', { status: 'responded' }),
    ]
    changed = { s1: [{ run: 3, files: 2 }] }
    plan = {
      run: 3,
      files: [
        { workspace: '/w', path: 'README.md', action: 'restore', why: '' },
        { workspace: '/w', path: 'docs/new.md', action: 'remove', why: '' },
        { workspace: '/w', path: 'notes.txt', action: 'leave', why: 'it changed after Shrimp wrote it' },
      ],
      untracked: ['shell.run'],
      changes: true,
      taught: [{ id: 'p-1', chain: 'fs.write → shell.run' }],
    }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    // Only the request that changed files offers it.
    const link = await screen.findByTestId('undo-files')
    expect(screen.getAllByTestId('undo-files')).toHaveLength(1)
    expect(link.textContent).toBe('undo its file changes (2 files)')
    await fireEvent.click(link)
    expect(UndoPlan).toHaveBeenCalledWith('s1', 3)
    const list = await screen.findByTestId('undo-files-list')
    expect(list.textContent).toContain('put back')
    expect(list.textContent).toContain('README.md')
    expect(list.textContent).toContain('Shrimp created it')
    expect(list.textContent).toContain('it changed after Shrimp wrote it')
    expect(screen.getByTestId('undo-untracked').textContent).toContain('1 call of shell.run')
    // A file's diff is read when asked for, and only then.
    expect(UndoDiff).not.toHaveBeenCalled()
    const details = list.querySelector('details') as HTMLDetailsElement
    details.open = true
    await fireEvent(details, new Event('toggle'))
    await vi.waitFor(() => expect(screen.getAllByTestId('undo-diff')[0].textContent).toContain('+# My project'))
    expect(UndoDiff).toHaveBeenCalledWith('s1', 3, '/w', 'README.md')
    expect(list.querySelectorAll('details')).toHaveLength(2) // none for the file left as it is
    // The procedure the request taught can be forgotten from here.
    expect(screen.getByTestId('undo-taught').textContent).toContain('fs.write → shell.run')
    await fireEvent.click(screen.getByRole('button', { name: 'Forget it' }))
    expect(Forget).toHaveBeenCalledWith('p-1')
    await screen.findByRole('button', { name: 'Forgotten' })
    // Confirmed: the backend records files:restored, which the chat shows;
    // the request no longer offers an undo.
    undone = (session, run) => {
      changed = { s1: [] }
      chat.apply([{ seq: ++seq, session, type: 'files:restored', time: '', data: { run, files: (plan as { files: unknown[] }).files, untracked: ['shell.run'] } }])
      return plan
    }
    await fireEvent.click(screen.getByTestId('undo-confirm'))
    expect(Undo).toHaveBeenCalledWith('s1', 3, [])
    const said = await screen.findByTestId('files-restored')
    expect(said.textContent).toContain('put back README.md; removed docs/new.md; left as they are: notes.txt.')
    expect(said.textContent).toContain('What shell commands and MCP tools changed was not undone.')
    await vi.waitFor(() => expect(screen.queryByTestId('undo-files')).toBeNull())
    await vi.waitFor(() => expect(screen.queryByTestId('undo-confirm')).toBeNull())
  })

  it("undoes what an MCP tool wrote in the workspace and says what it did elsewhere is not known", async () => {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const events = [
      ev('agent:run-started', { text: 'save the draft with the files server' }),
      ev('agent:tool-call', { id: 'c1', name: 'mcp.files.write_file', arguments: { path: '/w/draft.md' } }),
      ev('agent:tool-call', { id: 'c2', name: 'mcp.files.write_file', arguments: { path: '/w/notes.md' } }),
      ev('agent:run-ended', { status: 'responded' }),
    ]
    changed = { s1: [{ run: 1, files: 2 }] }
    const files = [
      { workspace: '/w', path: 'draft.md', action: 'remove', why: '' },
      { workspace: '/w', path: 'notes.md', action: 'restore', why: '' },
    ]
    plan = { run: 1, files, untracked: [], elsewhere: ['mcp.files.write_file', 'mcp.files.write_file'], changes: true, taught: [] }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    await fireEvent.click(await screen.findByTestId('undo-files'))
    const list = await screen.findByTestId('undo-files-list')
    expect(list.textContent).toContain('draft.md')
    expect(list.textContent).toContain('notes.md')
    expect(screen.queryByTestId('undo-untracked')).toBeNull()
    expect(screen.getByTestId('undo-elsewhere').textContent).toContain('2 calls of mcp.files.write_file changed outside the workspace')
    undone = (session, run) => {
      changed = { s1: [] }
      chat.apply([{ seq: ++seq, session, type: 'files:restored', time: '', data: { run, files, untracked: [], elsewhere: ['mcp.files.write_file'] } }])
      return plan
    }
    await fireEvent.click(screen.getByTestId('undo-confirm'))
    const said = await screen.findByTestId('files-restored')
    expect(said.textContent).toContain('put back notes.md; removed draft.md.')
    expect(said.textContent).toContain('What MCP tools changed outside the workspace was not undone.')
    expect(said.textContent).not.toContain('What shell commands')
  })

  it('offers to take back the last undo under its notice, shows what it would do, and does it', async () => {
    const events: BusEvent[] = [
      { seq: 1, session: 's1', type: 'agent:run-started', time: '', data: { text: 'tidy the project' } },
      { seq: 2, session: 's1', type: 'agent:run-ended', time: '', data: { status: 'responded' } },
      { seq: 3, session: 's1', type: 'files:restored', time: '', data: { run: 1, files: [{ workspace: '/w', path: 'README.md', action: 'restore', why: '' }], untracked: [] } },
    ]
    changed = { s1: [] }
    const files = [
      { workspace: '/w', path: 'README.md', action: 'restore', why: '' },
      { workspace: '/w', path: 'notes.txt', action: 'leave', why: 'it changed after the undo: redoing would lose that' },
    ]
    redoPlan = { run: 1, files, untracked: [], changes: true, taught: [], redo: true }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    const link = await screen.findByTestId('redo-files')
    expect(link.textContent).toBe('take back this undo (1 file)')
    expect(screen.queryByTestId('undo-files')).toBeNull()
    await fireEvent.click(link)
    await screen.findByText('Take back the undo?')
    const list = await screen.findByTestId('undo-files-list')
    expect(list.textContent).toContain('write again')
    expect(list.textContent).toContain('it changed after the undo')
    const details = list.querySelector('details') as HTMLDetailsElement
    details.open = true
    await fireEvent(details, new Event('toggle'))
    await vi.waitFor(() => expect(screen.getAllByTestId('undo-diff')[0].textContent).toContain('+oops'))
    expect(RedoDiff).toHaveBeenCalledWith('s1', '/w', 'README.md')
    // Done: the chat says so, and the request offers its undo again.
    redone = () => {
      changed = { s1: [{ run: 1, files: 1 }] }
      redoPlan = { run: 0, files: [], untracked: [], changes: false, taught: [], redo: true }
      chat.apply([{ seq: 4, session: 's1', type: 'files:restored', time: '', data: { run: 1, files, untracked: [], redo: true } }])
      return redoPlan
    }
    await fireEvent.click(screen.getByRole('button', { name: 'Take back' }))
    expect(Redo).toHaveBeenCalledWith('s1', [])
    const said = await vi.waitFor(() => {
      const all = screen.getAllByTestId('files-restored')
      expect(all).toHaveLength(2)
      return all[1]
    })
    expect(said.textContent).toContain('Undo taken back: put back README.md; left as they are: notes.txt.')
    await vi.waitFor(() => expect(screen.queryByTestId('redo-files')).toBeNull())
    await screen.findByTestId('undo-files')
    // With an earlier undo still to take back, the link goes under its
    // notice, not under the one taken back.
    redoPlan = { run: 1, files: files.slice(0, 1), untracked: [], changes: true, taught: [], redo: true }
    chat.apply([
      { seq: 5, session: 's1', type: 'files:restored', time: '', data: { run: 1, files, untracked: [] } },
      { seq: 6, session: 's1', type: 'files:restored', time: '', data: { run: 1, files, untracked: [] } },
      { seq: 7, session: 's1', type: 'files:restored', time: '', data: { run: 1, files, untracked: [], redo: true } },
    ])
    const link2 = await screen.findByTestId('redo-files')
    const notices = screen.getAllByTestId('files-restored')
    expect(notices).toHaveLength(5)
    expect(notices[2].nextElementSibling).toBe(link2)
  })

  it('undoes a change another chat may have made only when the user ticks it', async () => {
    const events: BusEvent[] = [
      { seq: 1, session: 's1', type: 'agent:run-started', time: '', data: { text: 'build it' } },
      { seq: 2, session: 's1', type: 'agent:run-ended', time: '', data: { status: 'responded' } },
    ]
    changed = { s1: [{ run: 1, files: 1 }] }
    plan = {
      run: 1,
      files: [{ workspace: '/w', path: 'out.txt', action: 'leave', why: 'another request was changing files in this workspace', shared: true, would: 'restore' }],
      untracked: [],
      changes: false,
      taught: [],
    }
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    await fireEvent.click(await screen.findByTestId('undo-files'))
    const tick = (await screen.findByTestId('undo-file-anyway')) as HTMLInputElement
    expect(tick.checked).toBe(false)
    const confirm = screen.getByTestId('undo-confirm') as HTMLButtonElement
    expect(confirm.disabled).toBe(true)
    expect(screen.getByText('Nothing would change with these ticks.')).toBeTruthy()
    await fireEvent.click(tick)
    expect(screen.getByTestId('undo-files-list').textContent).toContain('put back anyway')
    expect(confirm.disabled).toBe(false)
    undone = () => ({ ...(plan as object), files: [{ workspace: '/w', path: 'out.txt', action: 'restore', why: '' }], changes: true })
    await fireEvent.click(confirm)
    expect(Undo).toHaveBeenCalledWith('s1', 1, [{ workspace: '/w', path: 'out.txt', anyway: true }])
  })

  it('keeps the files the user unticks as they are, and undoes nothing when every file is kept', async () => {
    const events: BusEvent[] = [
      { seq: 1, session: 's1', type: 'agent:run-started', time: '', data: { text: 'run the tests' } },
      { seq: 2, session: 's1', type: 'agent:tool-call', time: '', data: { id: 'c1', name: 'shell.run', arguments: { command: 'make test' } } },
      { seq: 3, session: 's1', type: 'agent:run-ended', time: '', data: { status: 'responded' } },
    ]
    changed = { s1: [{ run: 1, files: 2 }] }
    plan = {
      run: 1,
      files: [
        { workspace: '/w', path: 'src/main.go', action: 'restore', why: '' },
        { workspace: '/w', path: 'out.log', action: 'remove', why: '' },
        { workspace: '/w', path: 'notes.txt', action: 'leave', why: 'it changed after Shrimp wrote it' },
      ],
      untracked: [],
      changes: true,
      taught: [],
    }
    undone = () => ({ ...(plan as object), files: [] })
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', events)
    renderChat(chat)
    await fireEvent.click(await screen.findByTestId('undo-files'))
    await screen.findByTestId('undo-files-list')
    // A tick for each file undo would change, none for one it leaves.
    const checks = screen.getAllByTestId('undo-file-check') as HTMLInputElement[]
    expect(checks).toHaveLength(2)
    expect(checks.every((c) => c.checked)).toBe(true)
    const confirm = screen.getByTestId('undo-confirm') as HTMLButtonElement
    await fireEvent.click(checks[0])
    await fireEvent.click(checks[1])
    expect(confirm.disabled).toBe(true)
    expect(screen.getByTestId('undo-files-list').textContent).toContain('keep as it is')
    expect(screen.getByText('Nothing would change with these ticks.')).toBeTruthy()
    await fireEvent.click(checks[1])
    expect(confirm.disabled).toBe(false)
    await fireEvent.click(confirm)
    expect(Undo).toHaveBeenCalledWith('s1', 1, [{ workspace: '/w', path: 'src/main.go' }])
  })
})

describe('ChatView: retry and edit', () => {
  function session(): { chat: ChatState; runs: number[]; next: () => number } {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const events = [
      ev('agent:run-started', { text: 'read the notes' }),
      ev('agent:response', { text: 'they say hi' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('agent:run-started', { text: 'tidy the project' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.write', arguments: { path: 'README.md' } }),
      ev('agent:response', { text: 'tidied (it was not)' }),
      ev('agent:run-ended', { status: 'responded' }),
    ]
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.model = 'm'
    chat.load('s1', events)
    return { chat, runs: [events[0].seq, events[3].seq], next: () => ++seq }
  }

  it('retries the last request at once when it changed no files, folding the attempt away', async () => {
    changed = {}
    const { chat, runs } = session()
    vi.mocked(Send).mockClear()
    vi.mocked(Send).mockResolvedValueOnce({ session_id: 's1' } as never)
    renderChat(chat)
    // Only under the last request, and edit under each.
    expect(screen.getAllByTestId('retry')).toHaveLength(1)
    expect(screen.getAllByTestId('edit-request')).toHaveLength(2)
    await fireEvent.click(screen.getByTestId('retry'))
    await vi.waitFor(() => expect(Send).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1', text: '', replace: runs[1], undo_replaced: false, model: 'm' })))
    const folded = await screen.findByTestId('replaced')
    expect(folded.textContent).toContain('replaced: tidy the project')
    expect(screen.queryByText('tidied (it was not)')).toBeNull()
    // Unfolded on a click, dimmed; the model no longer sees it.
    await fireEvent.click(folded)
    await screen.findByText('tidied (it was not)')
    expect(folded.getAttribute('aria-expanded')).toBe('true')
  })

  it('asks before a retry of a request that changed files, and puts them back when left ticked', async () => {
    changed = { s1: [{ run: 4, files: 1 }] }
    plan = { run: 4, files: [{ workspace: '/w', path: 'README.md', action: 'restore', why: '' }], untracked: [], elsewhere: [], changes: true, taught: [{ id: 'p-2', chain: 'fs.write → fs.read → fs.write' }] }
    const { chat, runs } = session()
    vi.mocked(Send).mockClear()
    vi.mocked(Send).mockResolvedValueOnce({ session_id: 's1' } as never)
    renderChat(chat)
    await vi.waitFor(() => expect(chat.changed[runs[1]]).toBe(1))
    await fireEvent.click(screen.getByTestId('retry'))
    const files = await screen.findByTestId('retry-files')
    expect(files.textContent).toContain('README.md')
    expect(screen.getByTestId('retry-taught').textContent).toContain('fs.write → fs.read → fs.write')
    expect(Send).not.toHaveBeenCalled()
    await fireEvent.click(screen.getByTestId('retry-confirm'))
    await vi.waitFor(() => expect(Send).toHaveBeenCalledWith(expect.objectContaining({ replace: runs[1], undo_replaced: true })))
    // Cancelled: nothing is sent, nothing folds.
    changed = { s1: [{ run: 4, files: 1 }] }
    const again = session()
    vi.mocked(Send).mockClear()
    renderChat(again.chat)
    await vi.waitFor(() => expect(again.chat.changed[again.runs[1]]).toBe(1))
    await fireEvent.click(screen.getAllByTestId('retry').at(-1)!)
    await screen.findAllByTestId('retry-files')
    await fireEvent.click(screen.getAllByRole('button', { name: 'Cancel' }).at(-1)!)
    expect(Send).not.toHaveBeenCalled()
    expect(again.chat.items.some((i) => i.replaced)).toBe(false)
  })

  it('edits an earlier request in the message box and asks before replacing the ones after it', async () => {
    changed = {}
    const { chat, runs } = session()
    vi.mocked(Send).mockClear()
    vi.mocked(Send).mockResolvedValueOnce({ session_id: 's1' } as never)
    renderChat(chat)
    await fireEvent.click(screen.getAllByTestId('edit-request')[0])
    const box = (await screen.findByRole('textbox', { name: /message/i })) as HTMLTextAreaElement
    await vi.waitFor(() => expect(box.value).toBe('read the notes'))
    expect(document.activeElement).toBe(box)
    expect(screen.getByTestId('editing').textContent).toContain('replaces it and the 1 request after it')
    await fireEvent.input(box, { target: { value: 'read the notes aloud' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    await screen.findByText('Send the edited request?')
    await fireEvent.click(screen.getByTestId('retry-confirm'))
    await vi.waitFor(() => expect(Send).toHaveBeenCalledWith(expect.objectContaining({ text: 'read the notes aloud', replace: runs[0], undo_replaced: false })))
    await vi.waitFor(() => expect(screen.queryByTestId('editing')).toBeNull())
    expect(chat.items.filter((i) => i.replaced).length).toBe(5)
  })

  it('copies a finished answer as written', async () => {
    changed = {}
    const { chat } = session()
    const writeText = vi.fn(async () => {})
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    renderChat(chat)
    const copy = await screen.findAllByTestId('copy-answer')
    expect(copy).toHaveLength(2)
    await fireEvent.click(copy[1])
    expect(writeText).toHaveBeenCalledWith('tidied (it was not)')
    await vi.waitFor(() => expect(screen.getAllByTestId('copy-answer')[1].textContent).toBe('copied'))
  })

  it('shows what a check said when it sent the model back, between the two answers', async () => {
    let seq = 0
    const ev = (type: string, data: unknown): BusEvent => ({ seq: ++seq, session: 's1', type, time: '', data })
    const chat = new ChatState()
    chat.workspace = '/w'
    chat.load('s1', [
      ev('agent:run-started', { text: 'fix the date parsing' }),
      ev('agent:response', { text: 'Done.' }),
      ev('agent:sent-back', { text: '[hook a1 (make test), run when you answered, says the request is not done]\nFAIL: TestParse', time: 1 }),
      ev('agent:response', { text: 'Fixed it.' }),
      ev('agent:sent-back', { text: '[hook a1 (make test), run when you answered, says the request is not done]\nFAIL: TestFormat', time: 2 }),
      ev('agent:response', { text: 'Fixed that too.' }),
      ev('agent:run-ended', { status: 'responded' }),
    ])
    renderChat(chat)
    const back = screen.getAllByTestId('sent-back')
    expect(back).toHaveLength(2)
    expect(back[0].textContent).toContain('Sent back to work: a check you set up says the request is not done')
    expect(back[0].textContent).toContain('FAIL: TestParse')
    expect(back[1].textContent).toContain('(time 2)')
    expect(back[0].getAttribute('role')).toBe('status') // not an alarm: the run goes on
    const answers = screen.getAllByTestId('assistant')
    expect(answers.map((a) => a.textContent?.trim())).toEqual(['Done.', 'Fixed it.', 'Fixed that too.'])
    expect(answers[0].compareDocumentPosition(back[0]) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    expect(back[0].compareDocumentPosition(answers[1]) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
  })

  it('says a check runs on the answer, not that it waits for the model', async () => {
    const { chat, ev } = renderRunning()
    chat.apply([ev('agent:run-started', { text: 'fix it' }), ev('agent:response', { text: 'Done.' }), ev('hook:running', { event: 'pre-run-end', hook: 'hook a1 (make test)' })])
    const checking = await screen.findByTestId('checking')
    expect(checking.textContent).toContain('Checking the answer: hook a1 (make test)')
    expect(screen.queryByTestId('waiting')).toBeNull()
    chat.apply([ev('agent:run-ended', { status: 'responded' })])
    await vi.waitFor(() => expect(screen.queryByTestId('checking')).toBeNull())
  })

  it('says a slow check runs on a call, until the call goes on', async () => {
    const { chat, ev } = renderRunning()
    chat.apply([
      ev('agent:run-started', { text: 'clean up' }),
      ev('agent:tool-call', { id: 'c1', name: 'shell.run', arguments: { command: 'rm -rf build' } }),
      ev('hook:running', { event: 'pre-tool-call', hook: 'Claude Code PreToolUse prompt hook ab12 (Does this command delete files?…)' }),
    ])
    const checking = await screen.findByTestId('checking')
    expect(checking.textContent).toContain('Checking the call: Claude Code PreToolUse prompt hook ab12')
    expect(checking.textContent).toContain('it may deny the call')
    chat.apply([ev('agent:tool-result', { id: 'c1', name: 'shell.run', error: 'denied by …' })])
    await vi.waitFor(() => expect(screen.queryByTestId('checking')).toBeNull())
    // And after a call, on its result.
    chat.apply([
      ev('agent:tool-call', { id: 'c2', name: 'fs.write', arguments: { path: 'a.go' } }),
      ev('hook:running', { event: 'post-tool-call', hook: 'prompt hook cd34 (Did this edit keep the tests passing?…)' }),
    ])
    expect((await screen.findByTestId('checking')).textContent).toContain("Checking the call's result: prompt hook cd34")
  })

  it('names a slow hook the request waits for before its run, not the model', async () => {
    const chat = new ChatState()
    chat.workspace = '/w'
    renderChat(chat)
    chat.running = true
    chat.quietSince = Date.now() - 5000
    chat.preparing = { event: 'session-start', hook: 'hook a1 (./setup.sh)', since: Date.now() - 3000 }
    const preparing = await screen.findByTestId('preparing')
    expect(preparing.textContent).toContain('Starting the session: hook a1 (./setup.sh)')
    expect(preparing.textContent).toContain('the model is asked once it is done')
    expect(screen.queryByTestId('waiting')).toBeNull()
    chat.preparing = { event: 'pre-request', hook: 'hook a2 (./check.sh)', since: Date.now() - 3000 }
    await vi.waitFor(() => expect(screen.getByTestId('preparing').textContent).toContain('Checking the request: hook a2 (./check.sh)'))
    chat.preparing = null
    await vi.waitFor(() => expect(screen.queryByTestId('preparing')).toBeNull())
  })

  it('marks a model that thinks in the picker, and where to turn it off', async () => {
    const chat = new ChatState()
    chat.workspace = '/w'
    const ollama = { status: { reachable: true, foreign: false, models: ['qwen3:4b'], host: '' }, choices: [{ name: 'qwen3:4b', checked: true, tools: true, thinks: true }] } as unknown as OllamaState
    render(ChatView, { ollama, chat, models: {} as ModelsState, onopenprocedure: vi.fn() })
    const option = (await screen.findByRole('option', { name: /qwen3:4b/ })) as HTMLOptionElement
    expect(option.textContent).toBe('qwen3:4b (thinks: Settings can turn it off)')
  })
})
