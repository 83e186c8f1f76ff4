import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { fireEvent, render, screen, within } from '@testing-library/svelte'

let push: (batch: unknown[]) => void = () => {}
vi.mock('../../../../wailsjs/runtime/runtime', () => ({
  EventsOn: vi.fn((_name: string, cb: (b: unknown[]) => void) => {
    push = cb
    return () => {}
  }),
}))
const running = {
  name: 'files',
  command: 'npx',
  args: ['-y', 'server-filesystem'],
  url: '',
  env: { TOKEN: '***' },
  read_only: true,
  local: true,
  roots: false,
  disabled: false,
  timeout: 0,
  variables: ['FILES_TOKEN'],
  status: {
    name: 'files',
    state: 'running',
    transport: 'stdio',
    read_only: true,
    local: true,
    tools: [
      { name: 'read_file', offered: 'mcp.files.read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } }, hints: { read_only: true } },
      { name: 'rm', offered: 'mcp.files.rm', description: 'Remove a file', input_schema: { type: 'object' }, hints: { destructive: true, open_world: false } },
      // A built-in's name, and a description a server may make 100 KB long.
      { name: 'fs.write', offered: 'mcp.files.fs_write', description: 'Writes a file. ' + 'And says more. '.repeat(300), input_schema: { type: 'object' } },
      // 250 characters outside the BMP: 500 UTF-16 units, not cut.
      { name: 'shrimp', offered: 'mcp.files.shrimp', description: '🦐'.repeat(250), input_schema: { type: 'object' } },
      { name: 'list_resources', description: 'List the resources', input_schema: { type: 'object' }, kind: 'list_resources' },
      { name: 'index', description: 'Index every file', input_schema: { type: 'object' }, needs_tasks: true },
      { name: 'wipe', description: 'Remove every file', input_schema: { type: 'object' }, excluded: true },
    ],
    prompts: [{ name: 'review', title: 'Review', description: 'reviews a file', arguments: [{ name: 'path', required: true }, { name: 'style' }] }],
    last_error: '',
    stderr: ['stdout (not an MCP message): Secure MCP Filesystem Server running on stdio'],
    not_mcp: 2,
    restarts: 0,
    failures: 0,
    since: '',
  },
}
const failing = {
  ...running,
  name: 'web',
  read_only: false,
  local: false,
  variables: [],
  status: { ...running.status, name: 'web', state: 'failing', failures: 3, last_error: 'connect to MCP server web: refused', tools: [], prompts: [], not_mcp: 0, retry: '2026-12-04T10:15:00Z' },
}
// Written into mcp.json by hand with a name Shrimp cannot use: it never starts.
const unusable = {
  ...failing,
  name: 'My Files',
  status: { ...failing.status, name: 'My Files', failures: 0, retry: '', last_error: 'server name "My Files": use up to 32 letters' },
}
vi.mock('../../../../wailsjs/go/desktop/Extensions', () => ({
  Servers: vi.fn(async () => [running, failing]),
  Hooks: vi.fn(async () => [
    { id: 'ab12', event: 'agent:run-ended', command: 'notify-send', args: ['Shrimp', 'done'] },
    { id: 'cd34', event: 'pre-tool-call', command: '/opt/guard/deny', args: [] },
    { id: 'ef56', event: 'pre-tool-call', command: 'sh', args: ['scripts/guard.sh', '--url=https://x.example/a'] },
    { id: 'gh78', event: 'agent:run-ended', command: 'curl', args: ['-H', 'content-type: application/json', 'https://x.example/hook'] },
    { id: 'ij90', event: 'pre-tool-call', tool: 'Bash', claude: 'PreToolUse', command: '/usr/bin/bash', args: ['-c', "jq -r .tool_input.command | grep -q 'rm -rf' && exit 2"] },
    { id: 'mn34', event: 'pre-run-end', claude: 'Stop', command: '', prompt: 'Is every task done? $ARGUMENTS', timeout: 30 },
    { id: 'op56', event: 'pre-tool-call', tool: 'run_shell_command', claude: 'BeforeTool', gemini: true, command: '/usr/bin/bash', args: ['-c', '~/.gemini/hooks/guard.sh'], timeout: 5 },
    { id: 'qr78', event: 'pre-tool-call', claude: 'beforeShellExecution', cursor: true, failClosed: true, command: '/usr/bin/bash', args: ['-c', 'cursor-guard'], timeout: 10 },
  ]),
  HooksNotFound: vi.fn(async () => ['cd34', 'ij90', 'qr78']),
  ClaudeSettingsFile: vi.fn(async () => '/home/me/.claude/settings.json'),
  ImportClaudeHooks: vi.fn(async (_path: string, dry: boolean) => ({
    file: '/work/app/.claude/settings.json',
    added: [{ id: dry ? '' : 'kl12', event: 'post-tool-call', tool: 'Write|Edit', claude: 'PostToolUse', command: '/usr/bin/bash', args: ['-c', 'npx prettier --write "$(jq -r .tool_input.file_path)"'], timeout: 60 }],
    held: [{ id: 'ij90', event: 'pre-tool-call', tool: 'Bash', claude: 'PreToolUse', command: '/usr/bin/bash', args: ['-c', 'x'] }],
    skipped: [{ event: 'SessionEnd', matcher: '', command: 'cat notes.md', why: 'Shrimp has no session end to run it at' }],
    notes: ['npx is not installed here'],
    project: true,
  })),
  HookProblems: vi.fn(async () => ({ ab12: '/usr/bin/notify-send has Windows line endings (CRLF): convert it' })),
  TryHook: vi.fn(async (id: string) => ({
    says: `hook ${id} (pre-tool-call Bash (Claude Code PreToolUse)) lets the call of shell.run go on to the approval mode`,
    notes: ['Claude Code PreToolUse hook exited with status 1, which for a Claude Code hook is an error that does not block'],
  })),
  HookEvents: vi.fn(async () => ['pre-tool-call', 'agent:run-ended']),
  SaveServer: vi.fn(async () => {}),
  SetServerEnabled: vi.fn(async () => {}),
  SetToolOffered: vi.fn(async () => {}),
  RemoveServer: vi.fn(async () => {}),
  ImportServers: vi.fn(async () => ({ names: ['pasted', 'my-web'], notes: ['"My Web" is named my-web here'] })),
  AddHook: vi.fn(async (h: unknown) => h),
  RemoveHook: vi.fn(async () => {}),
  SetHookEnabled: vi.fn(async () => {}),
  SetHookTimeout: vi.fn(async () => {}),
  BeginSignIn: vi.fn(async () => 'https://auth.example/authorize?client_id=c&state=s'),
  FinishSignIn: vi.fn(),
  CancelSignIn: vi.fn(async () => {}),
  SignOut: vi.fn(async () => {}),
  RetryServer: vi.fn(async () => {}),
  SavedCommands: vi.fn(async () => ({
    commands: [{ name: 'review', description: 'Review the staged changes', argument_hint: '[focus]', arguments: true, scope: 'workspace', file: '/w/.claude/commands/review.md' }],
    warnings: ['command /home/me/.claude/commands/x!.md left out: its name "x!" is not letters, digits'],
  })),
  Skills: vi.fn(async () => ({
    skills: [{ name: 'release-notes', description: 'Write release notes from the git log.', dir: '/home/me/.agents/skills/release-notes', scope: 'user' }],
    warnings: ['skill /home/me/.claude/skills/Bad left out: its name "Bad" is not lower-case words joined by hyphens (64 characters at most)'],
  })),
}))

import ExtensionsView from './ExtensionsView.svelte'
import { preferences } from '../../state/preferences.svelte'
import {
  AddHook,
  BeginSignIn,
  CancelSignIn,
  FinishSignIn,
  ImportClaudeHooks,
  ImportServers,
  RetryServer,
  SaveServer,
  Servers,
  SetHookTimeout,
  SetServerEnabled,
  SetToolOffered,
  SignOut,
  Skills,
  TryHook,
} from '../../../../wailsjs/go/desktop/Extensions'

describe('ExtensionsView', () => {
  it("shows a Claude Code hook as its author wrote it, and imports Claude Code's hooks after checking them", async () => {
    render(ExtensionsView)
    const rows = await screen.findAllByTestId('hook-row')
    const claude = rows.find((r) => r.textContent?.includes('Claude Code PreToolUse'))!
    expect(claude.textContent).toContain("jq -r .tool_input.command | grep -q 'rm -rf' && exit 2")
    expect(claude.textContent).not.toContain('/usr/bin/bash')
    // A Claude Code guard that cannot run blocks nothing, unlike Shrimp's own.
    expect(within(claude).getByTestId('hook-not-found').textContent).toContain('blocks nothing')
    const own = rows.find((r) => r.textContent?.includes('/opt/guard/deny'))!
    expect(within(own).getByTestId('hook-not-found').textContent).toContain('every call it applies to is denied')
    // A prompt hook is a question for the model, not a command.
    const prompt = rows.find((r) => r.textContent?.includes('Claude Code Stop'))!
    expect(prompt.textContent).toContain('asks the model: Is every task done? $ARGUMENTS')
    expect(within(prompt).queryByText(/runs .* of each workspace/)).toBeNull()
    // One from Gemini CLI is named as its.
    const gemini = rows.find((r) => r.textContent?.includes('~/.gemini/hooks/guard.sh'))!
    expect(gemini.textContent).toContain('Gemini CLI BeforeTool')
    expect(gemini.textContent).not.toContain('Claude Code')
    // One from Cursor too; with its failClosed, a guard that cannot run denies.
    const cursor = rows.find((r) => r.textContent?.includes('cursor-guard'))!
    expect(cursor.textContent).toContain('Cursor beforeShellExecution')
    expect(within(cursor).getByTestId('hook-not-found').textContent).toContain('every call it applies to is denied (its failClosed)')

    const box = screen.getByTestId('claude-import') as HTMLDetailsElement
    box.open = true
    await fireEvent(box, new Event('toggle'))
    const path = within(box).getByLabelText('Settings file to import hooks from') as HTMLInputElement
    await vi.waitFor(() => expect(path.placeholder).toBe('/home/me/.claude/settings.json'))
    await fireEvent.input(path, { target: { value: '~/work/app/.claude/settings.json' } })
    await fireEvent.click(within(box).getByRole('button', { name: 'Check' }))
    const check = await within(box).findByTestId('claude-check')
    expect(ImportClaudeHooks).toHaveBeenLastCalledWith('~/work/app/.claude/settings.json', true)
    expect(check.textContent).toContain('1 hook to add from /work/app/.claude/settings.json; 1 already here.')
    expect(check.textContent).toContain('npx prettier --write')
    expect(within(check).getByTestId('claude-skipped').textContent).toContain('Shrimp has no session end')
    expect(check.textContent).toContain('npx is not installed here')
    expect(within(check).getByTestId('claude-project').textContent).toContain('from a project, written by whoever wrote it')
    await fireEvent.click(within(check).getByRole('button', { name: 'Import 1 hook' }))
    await vi.waitFor(() => expect(ImportClaudeHooks).toHaveBeenLastCalledWith('~/work/app/.claude/settings.json', false))
    expect(await screen.findByText('Imported 1 Claude Code hook: it runs from the next request.')).toBeTruthy()
    expect(within(box).queryByTestId('claude-check')).toBeNull()
  })

  it('tries a hook from its row and shows what Shrimp made of its answer', async () => {
    render(ExtensionsView)
    const rows = await screen.findAllByTestId('hook-row')
    const claude = rows.find((r) => r.textContent?.includes('Claude Code PreToolUse'))!
    await fireEvent.click(within(claude).getByRole('button', { name: 'Try' }))
    const trial = await within(claude).findByTestId('hook-trial')
    expect(trial.textContent).toContain('lets the call of shell.run go on to the approval mode')
    expect(trial.textContent).toContain('an error that does not block')
    expect(vi.mocked(TryHook)).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ workspace: expect.any(String) }))
  })

  it("changes a hook's timeout on its row", async () => {
    render(ExtensionsView)
    const rows = await screen.findAllByTestId('hook-row')
    const prompt = rows.find((r) => r.textContent?.includes('Claude Code Stop'))!
    const seconds = within(prompt).getByLabelText('Timeout of hook mn34, seconds') as HTMLInputElement
    expect(seconds.value).toBe('30')
    expect((within(rows[0]).getByLabelText('Timeout of hook ab12, seconds') as HTMLInputElement).value).toBe('5') // the default
    await fireEvent.change(seconds, { target: { value: '90' } })
    await vi.waitFor(() => expect(SetHookTimeout).toHaveBeenCalledWith('mn34', 90))
    expect(await screen.findByText('Hook mn34 may now run for 90 s.')).toBeTruthy()
  })

  it("says a Claude Code plugin's hooks are its authors' before importing them", async () => {
    vi.mocked(ImportClaudeHooks).mockImplementationOnce(async () => ({
      file: '/home/me/.claude/plugins/cache/x/guard/1.0.0/hooks/hooks.json',
      added: [{ id: '', event: 'pre-tool-call', tool: 'Bash', claude: 'PreToolUse', command: '/usr/bin/bash', args: ['-c', 'sh /p/scripts/no-push.sh'], timeout: 60, env: { CLAUDE_PLUGIN_ROOT: '/p' } }],
      held: [],
      skipped: [],
      notes: ["the plugin's folder (CLAUDE_PLUGIN_ROOT) is /p"],
      project: false,
      plugin: '/home/me/.claude/plugins/cache/x/guard/1.0.0',
    }) as never)
    render(ExtensionsView)
    const box = await screen.findByTestId('claude-import')
    ;(box as HTMLDetailsElement).open = true
    await fireEvent(box, new Event('toggle'))
    await fireEvent.input(within(box).getByLabelText('Settings file to import hooks from'), { target: { value: '~/.claude/plugins/cache/x/guard/1.0.0/hooks/hooks.json' } })
    await fireEvent.click(within(box).getByRole('button', { name: 'Check' }))
    const check = await within(box).findByTestId('claude-check')
    expect(within(check).getByTestId('claude-project').textContent).toContain('from a Claude Code plugin, written by its authors')
    expect(check.textContent).toContain('CLAUDE_PLUGIN_ROOT=/p sh /p/scripts/no-push.sh')
    expect(check.textContent).toContain('CLAUDE_PLUGIN_ROOT) is /p')
  })

  it('says a server whose settings cannot start it cannot start, and offers no retry', async () => {
    vi.mocked(Servers).mockImplementation(async () => [unusable] as never)
    try {
      render(ExtensionsView)
      const row = await screen.findByTestId('mcp-server')
      expect(row.textContent).toContain('cannot start')
      expect(row.textContent).not.toContain('retrying')
      expect(screen.queryByRole('button', { name: 'Retry now' })).toBeNull()
    } finally {
      vi.mocked(Servers).mockImplementation(async () => [running, failing] as never)
    }
  })

  it('shows servers with their status, tools, errors and stderr, and follows live changes', async () => {
    render(ExtensionsView)
    const rows = await screen.findAllByTestId('mcp-server')
    expect(rows.map((r) => r.dataset.state)).toEqual(['running', 'failing'])
    expect(screen.getByText(`failing (3 failures in a row; tried again at ${new Date('2026-12-04T10:15:00Z').toLocaleTimeString()})`)).toBeTruthy()
    // A failed server can be tried again now (its command was installed, say); a running one has no such button.
    expect(screen.getAllByRole('button', { name: 'Retry now' })).toHaveLength(1)
    await fireEvent.click(screen.getByRole('button', { name: 'Retry now' }))
    await vi.waitFor(() => expect(RetryServer).toHaveBeenCalledWith('web'))
    expect(screen.getByTestId('mcp-error').textContent).toContain('refused')
    expect(screen.getByText('read-only')).toBeTruthy()
    expect(screen.getAllByText('local')).toHaveLength(1)
    await fireEvent.click(screen.getByRole('button', { name: '4 tools and resources, 2 not offered, 1 prompt (type / in the message box)' }))
    expect(screen.getByText('read_file')).toBeTruthy()
    // The model's name for a tool is said where it is not the server's.
    expect(screen.getAllByTestId('mcp-offered-as').map((e) => e.textContent)).toEqual(['(the model calls it mcp.files.fs_write)'])
    // A long description is cut in its row and whole when the row is opened.
    const long = screen.getByText('fs.write').closest('summary')!
    expect(long.textContent!.length).toBeLessThan(400)
    expect(long.textContent).toContain('…')
    expect(screen.getAllByTestId('mcp-tool-description').map((e) => e.textContent!.length)).toEqual([15 + 15 * 300])
    expect(screen.getByText('shrimp').closest('summary')!.textContent).toContain('🦐'.repeat(250))
    // The tool Shrimp adds for resources is marked as Shrimp's; the
    // prompts are listed with their arguments.
    expect(screen.getAllByTestId('mcp-resource-tool')).toHaveLength(1)
    // A tool that must run as an MCP task is listed as not offered.
    expect(screen.getByTestId('mcp-task-tool').closest('summary')?.textContent).toContain('index')
    // So is one its settings exclude (excludeTools).
    expect(screen.getByTestId('mcp-excluded-tool').closest('summary')?.textContent).toContain('wipe')
    expect(screen.getByTestId('mcp-prompts').textContent?.replace(/\s+/g, ' ').trim()).toBe('/review Review: reviews a file (path, style?)')
    // What the server says of its tools, as its word.
    expect(screen.getByText('says: only reads')).toBeTruthy()
    expect(screen.getByText('says: may delete or overwrite')).toBeTruthy()
    expect(screen.queryByText('says: reaches outside')).toBeNull()
    expect(screen.getByTestId('mcp-stderr').textContent).toContain('Secure MCP Filesystem Server')
    // One warning, for the server that printed to stdout.
    expect(screen.getByTestId('mcp-not-mcp').textContent).toContain('2 lines to stdout that are not MCP messages')
    expect(screen.getByTestId('mcp-variables').textContent).toContain('Takes FILES_TOKEN from your environment')
    expect(screen.getByText(/Last lines of its log \(stderr, and stdout that was not MCP\)/)).toBeTruthy()
    // The user's skills, and why one was left out.
    expect(screen.getByTestId('skills').textContent).toContain('release-notes Write release notes from the git log.')
    expect(screen.getByTestId('skill-warning').textContent).toContain('left out')
    // The saved commands, the workspace's marked, and why one was left out.
    expect(screen.getByTestId('saved-commands').textContent).toContain('/review [focus]')
    expect(screen.getByTestId('saved-commands').textContent).toContain('workspace')
    expect(screen.getByTestId('command-warning').textContent).toContain('left out')
    await fireEvent.click(screen.getByLabelText('Enable web'))
    expect(vi.mocked(SetServerEnabled)).toHaveBeenCalledWith('web', false)
    // Each of its own tools can be kept from the model, and offered again;
    // not the one Shrimp adds for resources, nor one that needs tasks.
    expect((screen.getByLabelText('Offer rm of files to the model') as HTMLInputElement).checked).toBe(true)
    expect((screen.getByLabelText('Offer wipe of files to the model') as HTMLInputElement).checked).toBe(false)
    expect(screen.queryByLabelText('Offer list_resources of files to the model')).toBeNull()
    expect(screen.queryByLabelText('Offer index of files to the model')).toBeNull()
    await fireEvent.click(screen.getByLabelText('Offer rm of files to the model'))
    await vi.waitFor(() => expect(vi.mocked(SetToolOffered)).toHaveBeenCalledWith('files', 'rm', false))
    await fireEvent.click(screen.getByLabelText('Offer wipe of files to the model'))
    await vi.waitFor(() => expect(vi.mocked(SetToolOffered)).toHaveBeenCalledWith('files', 'wipe', true))
    const before = vi.mocked(Servers).mock.calls.length
    push([{ seq: 0, session: '', type: 'mcp:server-changed', time: '', data: { name: 'files', state: 'restarting' } }])
    await vi.waitFor(() => expect(vi.mocked(Servers).mock.calls.length).toBeGreaterThan(before))
  })

  it('adds a server from the form: arguments per line, env as KEY=VALUE', async () => {
    render(ExtensionsView)
    await fireEvent.click(await screen.findByRole('button', { name: 'Add server' }))
    await fireEvent.input(screen.getByLabelText('Server name'), { target: { value: 'files2' } })
    await fireEvent.input(screen.getByLabelText('Server command'), { target: { value: 'npx' } })
    await fireEvent.input(screen.getByLabelText('Server arguments'), { target: { value: '-y\n\n@modelcontextprotocol/server-filesystem\n/home/me' } })
    await fireEvent.input(screen.getByLabelText('Server environment'), { target: { value: 'TOKEN=abc=def' } })
    await fireEvent.click(screen.getByLabelText('Read-only server'))
    await fireEvent.click(screen.getByLabelText('Local server'))
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    const [prev, input] = vi.mocked(SaveServer).mock.calls[0]
    expect(prev).toBe('')
    expect(input).toMatchObject({
      name: 'files2',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'],
      url: '',
      env: { TOKEN: 'abc=def' },
      read_only: true,
      local: true,
      roots: true, // a server started here is told the workspace unless unticked
    })
  })

  it('adds a URL server with headers over SSE', async () => {
    render(ExtensionsView)
    await fireEvent.click(await screen.findByRole('button', { name: 'Add server' }))
    await fireEvent.input(screen.getByLabelText('Server name'), { target: { value: 'gh' } })
    await fireEvent.click(screen.getByLabelText('URL (HTTP)'))
    await fireEvent.input(screen.getByLabelText('Server URL'), { target: { value: 'https://api.example/mcp' } })
    await fireEvent.input(screen.getByLabelText('Server headers'), { target: { value: 'Authorization: Bearer ${GH_TOKEN}\n\nX-Team:core' } })
    await fireEvent.click(screen.getByLabelText('SSE server'))
    vi.mocked(SaveServer).mockClear()
    await fireEvent.click(screen.getByRole('button', { name: 'Add' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    expect(vi.mocked(SaveServer).mock.calls[0][1]).toMatchObject({
      name: 'gh',
      command: '',
      url: 'https://api.example/mcp',
      env: {},
      headers: { Authorization: 'Bearer ${GH_TOKEN}', 'X-Team': 'core' },
      roots: false, // a server elsewhere is not told the folder's path
      sse: true,
    })
  })

  it("lists the chat workspace's skills beside the user's", async () => {
    preferences.workspace = '/home/me/project'
    onTestFinished(() => {
      preferences.workspace = ''
    })
    vi.mocked(Skills).mockResolvedValueOnce({
      skills: [
        { name: 'deploy', description: 'Deploy this project.', dir: '/home/me/project/.agents/skills/deploy', scope: 'workspace' },
        { name: 'release-notes', description: 'Write release notes.', dir: '/home/me/.agents/skills/release-notes', scope: 'user' },
      ],
      warnings: [],
    } as never)
    render(ExtensionsView)
    const list = await screen.findByTestId('skills')
    expect(vi.mocked(Skills)).toHaveBeenLastCalledWith('/home/me/project')
    const [deploy, notes] = list.querySelectorAll('li')
    expect(deploy.textContent).toContain('workspace')
    expect(notes.textContent).not.toContain('workspace')
    expect(screen.getByText(/listed here for your chat's workspace/).textContent).toContain('/home/me/project')
  })

  it('sets, keeps and clears an OAuth app registered in advance', async () => {
    const hosted = { ...failing, name: 'hosted', command: '', args: [], url: 'https://mcp.example/mcp', env: {}, headers: {}, oauth_client_id: 'app-1', oauth_client_secret: '***', oauth_callback_port: 8765 }
    vi.mocked(Servers).mockImplementation(async () => [hosted] as never)
    onTestFinished(() => {
      vi.mocked(Servers).mockImplementation(async () => [running, failing] as never)
    })
    render(ExtensionsView)
    const card = (await screen.findByText('hosted')).closest('li') as HTMLElement
    await fireEvent.click(within(card).getByRole('button', { name: 'Edit' }))
    // Shown as stored, the secret as ***, which keeps it.
    expect((screen.getByLabelText('OAuth client ID') as HTMLInputElement).value).toBe('app-1')
    expect((screen.getByLabelText('OAuth client secret') as HTMLInputElement).value).toBe('***')
    expect((screen.getByLabelText('OAuth client secret') as HTMLInputElement).type).toBe('password')
    vi.mocked(SaveServer).mockClear()
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    expect(vi.mocked(SaveServer).mock.calls[0]).toMatchObject(['hosted', { oauth_client_id: 'app-1', oauth_client_secret: '***', oauth_callback_port: 8765 }])
    await vi.waitFor(() => expect(screen.queryByLabelText('OAuth client ID')).toBeNull()) // saved, the form closed
    // An empty client id sends no app at all.
    await fireEvent.click(within(await screen.findByTestId('mcp-server')).getByRole('button', { name: 'Edit' }))
    await fireEvent.input(screen.getByLabelText('OAuth client ID'), { target: { value: '  ' } })
    vi.mocked(SaveServer).mockClear()
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    expect(vi.mocked(SaveServer).mock.calls[0][1]).toMatchObject({ oauth_client_id: '', oauth_client_secret: '', oauth_callback_port: 0 })
  })

  it('says a server naming ${workspaceFolder} waits for a request, then where it works', async () => {
    const waiting = {
      ...failing,
      name: 'fs',
      status: { ...failing.status, name: 'fs', state: 'waiting', failures: 0, last_error: 'it names ${workspaceFolder}, the workspace it works in: it starts with the first request' },
    }
    vi.mocked(Servers).mockImplementation(async () => [waiting] as never)
    const { unmount } = render(ExtensionsView)
    expect((await screen.findByTestId('mcp-state')).textContent).toBe('starts with the first request')
    expect(screen.getByTestId('mcp-waiting').textContent).toContain('workspace of the request')
    expect(screen.queryByTestId('mcp-error')).toBeNull() // waiting is not failing
    expect(screen.queryByTestId('mcp-folder')).toBeNull()
    expect(screen.queryByText(/0 tools/)).toBeNull() // none yet: not "0 tools"
    unmount()
    const running = { ...waiting, status: { ...waiting.status, state: 'running', last_error: '', folder: '/home/ann/shop' } }
    vi.mocked(Servers).mockImplementation(async () => [running] as never)
    render(ExtensionsView)
    expect((await screen.findByTestId('mcp-folder')).textContent).toContain('/home/ann/shop')
    expect(screen.getByTestId('mcp-state').textContent).toBe('running')
  })

  it('signs in to a server that asks for it, shows the address while the browser is away, and signs out', async () => {
    const waiting = {
      ...failing,
      name: 'hosted',
      url: 'https://mcp.example/mcp',
      status: { ...failing.status, name: 'hosted', state: 'sign-in', failures: 0, last_error: 'MCP server hosted: it asks you to sign in' },
    }
    const signedIn = { ...waiting, status: { ...waiting.status, state: 'running', last_error: '', signed_in: true } }
    vi.mocked(Servers).mockImplementation(async () => [waiting] as never)
    let finish: () => void = () => {}
    vi.mocked(FinishSignIn).mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)))
    render(ExtensionsView)
    expect((await screen.findByTestId('mcp-state')).textContent).toBe('waiting for you to sign in')
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in to hosted' }))
    const address = (await screen.findByLabelText('Sign-in address for hosted')) as HTMLInputElement
    expect(address.value).toBe('https://auth.example/authorize?client_id=c&state=s')
    expect(vi.mocked(BeginSignIn)).toHaveBeenCalledWith('hosted')
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(vi.mocked(CancelSignIn)).toHaveBeenCalledWith('hosted')
    vi.mocked(Servers).mockImplementation(async () => [signedIn] as never)
    finish()
    await vi.waitFor(() => expect(screen.getByTestId('mcp-state').textContent).toBe('running, signed in'))
    expect(screen.queryByTestId('mcp-signing-in')).toBeNull()
    expect(screen.getByText('Signed in to hosted.')).toBeTruthy()
    await fireEvent.click(screen.getByRole('button', { name: 'Sign out' }))
    expect(vi.mocked(SignOut)).toHaveBeenCalledWith('hosted')
    vi.mocked(Servers).mockImplementation(async () => [running, failing] as never)
  })

  it('imports a pasted file and adds a hook', async () => {
    render(ExtensionsView)
    expect((await screen.findAllByTestId('hook-row')).length).toBe(8)
    // The gate whose command is not there says what that means.
    expect(screen.getAllByTestId('hook-not-found').map((e) => e.textContent)).toEqual([
      'not found: every call it applies to is denied',
      'not found: it blocks nothing (a Claude Code hook that fails does not block)',
      'not found: every call it applies to is denied (its failClosed)',
    ])
    // One that is found and cannot start (its script's first line) says so,
    // and why on hover.
    const cannot = screen.getAllByTestId('hook-cannot-start')
    expect(cannot.map((e) => e.textContent)).toEqual(['cannot start: it fails each time'])
    expect(cannot[0].title).toContain('Windows line endings')
    // One naming a script by a relative path runs each workspace's own
    // (and a header or an address is no script).
    const relative = screen.getAllByTestId('hook-relative')
    expect(relative.map((e) => e.textContent)).toEqual(['runs scripts/guard.sh of each workspace'])
    expect(relative[0].title).toContain('where there is none every call it applies to is denied')
    expect(screen.getAllByTestId('hook-row')[1].textContent).toContain('/opt/guard/deny')
    await fireEvent.input(screen.getByLabelText('Pasted mcp.json'), { target: { value: '{"mcpServers": {"pasted": {"url": "http://x/mcp"}}}' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Import' }))
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toContain('Imported pasted, my-web. "My Web" is named my-web here'))
    expect(vi.mocked(ImportServers)).toHaveBeenCalled()
    await fireEvent.input(screen.getByLabelText('Hook event'), { target: { value: 'pre-tool-call' } })
    await fireEvent.input(await screen.findByLabelText('Hook tool pattern'), { target: { value: 'shell.run' } })
    await fireEvent.input(screen.getByLabelText('Hook command'), { target: { value: '/home/me/deny.sh' } })
    await fireEvent.click(screen.getByRole('button', { name: 'Add hook' }))
    await vi.waitFor(() => expect(vi.mocked(AddHook)).toHaveBeenCalled())
    expect(vi.mocked(AddHook).mock.calls[0][0]).toMatchObject({ event: 'pre-tool-call', tool: 'shell.run', command: '/home/me/deny.sh', args: [] })
    // A question for the model instead of a command, on an event that
    // waits for an answer.
    await vi.waitFor(() => expect((screen.getByLabelText('Hook tool pattern') as HTMLInputElement).value).toBe('')) // the form is emptied
    await fireEvent.click(screen.getByLabelText('Ask the model instead of running a command'))
    expect(screen.queryByLabelText('Hook command')).toBeNull()
    const add = () => screen.getByRole('button', { name: 'Add hook' }) as HTMLButtonElement
    expect(add().disabled).toBe(true)
    await fireEvent.input(screen.getByLabelText('Hook question'), { target: { value: 'Does this command delete files? $ARGUMENTS' } })
    await fireEvent.input(screen.getByLabelText('Hook tool pattern'), { target: { value: 'shell.run' } })
    expect(add().disabled).toBe(false)
    await fireEvent.click(add())
    await vi.waitFor(() => expect(vi.mocked(AddHook)).toHaveBeenCalledTimes(2))
    expect(vi.mocked(AddHook).mock.calls[1][0]).toMatchObject({ event: 'pre-tool-call', tool: 'shell.run', command: '', args: [], prompt: 'Does this command delete files? $ARGUMENTS' })
    // An event that only watches has no question to answer.
    await fireEvent.input(screen.getByLabelText('Hook event'), { target: { value: 'agent:run-ended' } })
    expect(screen.queryByLabelText('Ask the model instead of running a command')).toBeNull()
    expect(screen.getByLabelText('Hook command')).toBeTruthy()
  })

  // A server marked "roots": false keeps that when edited; ticking the box
  // tells it the workspace again.
  it('keeps a server told no roots as it was, until the box is ticked', async () => {
    render(ExtensionsView)
    const card = (await screen.findAllByTestId('mcp-server'))[0]
    await fireEvent.click(within(card).getByRole('button', { name: 'Edit' }))
    const box = screen.getByLabelText('Tell it the workspace') as HTMLInputElement
    expect(box.checked).toBe(false)
    vi.mocked(SaveServer).mockClear()
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    expect(vi.mocked(SaveServer).mock.calls[0][1]).toMatchObject({ name: 'files', roots: false })
    await vi.waitFor(() => expect(screen.queryByLabelText('Tell it the workspace')).toBeNull()) // saved, the form closed
    await fireEvent.click(within((await screen.findAllByTestId('mcp-server'))[0]).getByRole('button', { name: 'Edit' }))
    await fireEvent.click(screen.getByLabelText('Tell it the workspace'))
    vi.mocked(SaveServer).mockClear()
    await fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await vi.waitFor(() => expect(vi.mocked(SaveServer)).toHaveBeenCalled())
    expect(vi.mocked(SaveServer).mock.calls[0][1]).toMatchObject({ name: 'files', roots: true })
  })
})
