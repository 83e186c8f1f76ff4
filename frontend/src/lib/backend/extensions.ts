// The only module that imports the Extensions bindings (MCP servers and hooks).
import {
  AddHook,
  BeginSignIn,
  ClaudeSettingsFile,
  CancelSignIn,
  Commands,
  CompletePrompt,
  FinishSignIn,
  HookEvents,
  Hooks,
  HooksNotFound,
  HookProblems,
  ImportClaudeHooks,
  ImportServers,
  Prompts,
  Resources,
  RemoveHook,
  RemoveServer,
  RetryServer,
  SavedCommands,
  SaveServer,
  Servers,
  SetHookEnabled,
  SetHookTimeout,
  SetServerEnabled,
  SetToolOffered,
  SignOut,
  Skills,
  TryHook,
  UseCommand,
  UsePrompt,
  UseResource,
} from '../../../wailsjs/go/desktop/Extensions'
import { app, desktop, hooks } from '../../../wailsjs/go/models'
import type { CommandsFound, Hook, HooksImport, HookTrial, McpServer, McpServerInput, PromptChoice, ResourceChoice, SkillsFound } from './types'

export const extensionsApi = {
  servers: (): Promise<McpServer[]> => Servers(),
  saveServer: (previous: string, s: McpServerInput): Promise<void> => SaveServer(previous, desktop.ServerInput.createFrom(s)),
  setServerEnabled: (name: string, enabled: boolean): Promise<void> => SetServerEnabled(name, enabled),
  /** Offers a server's tool to the model or keeps it from it (excludeTools), without restarting the server. */
  setToolOffered: (server: string, tool: string, offered: boolean): Promise<void> => SetToolOffered(server, tool, offered),
  removeServer: (name: string): Promise<void> => RemoveServer(name),
  /** Adds a pasted file's servers: their names, and notes on those renamed or left out. */
  importServers: (text: string): Promise<{ names: string[]; notes: string[] }> => ImportServers(text),
  prompts: (): Promise<PromptChoice[]> => Prompts(),
  /** The saved commands (.claude/commands, ~/.claude/commands, Codex's prompts)
   *  a request in workspace may start from, as prompts with server ''. */
  commands: (workspace: string): Promise<PromptChoice[]> => Commands(workspace),
  /** A saved command filled in with what was typed for it. */
  useCommand: (workspace: string, name: string, args: string): Promise<string> => UseCommand(workspace, name, args),
  usePrompt: (server: string, name: string, args: Record<string, string>): Promise<string> => UsePrompt(server, name, args),
  /** What the running servers offer to be read, for the message box's "@". */
  resources: (): Promise<ResourceChoice[]> => Resources(),
  /** A resource read for the message box (named, fenced, cut at 32 KiB). */
  useResource: (server: string, uri: string): Promise<string> => UseResource(server, uri),
  /** Values the server suggests for a prompt's argument, going on from what was typed. */
  completePrompt: (server: string, name: string, arg: string, typed: string, filled: Record<string, string>): Promise<string[]> =>
    CompletePrompt(server, name, arg, typed, filled),
  /** Opens the server's sign-in page in the browser and returns its address. */
  beginSignIn: (name: string): Promise<string> => BeginSignIn(name),
  /** Waits for the browser to come back (or the sign-in to fail or be cancelled). */
  finishSignIn: (name: string): Promise<void> => FinishSignIn(name),
  cancelSignIn: (name: string): Promise<void> => CancelSignIn(name),
  signOut: (name: string): Promise<void> => SignOut(name),
  /** Tries a failed server again now, not after its backoff. */
  retryServer: (name: string): Promise<void> => RetryServer(name),
  hooks: (): Promise<Hook[]> => Hooks(),
  /** The ids of the hooks switched on whose command cannot be found. */
  hooksNotFound: (): Promise<string[]> => HooksNotFound(),
  /** Why each hook switched on that is found cannot start (a script with
   *  Windows line endings, an interpreter not installed), by id. */
  hookProblems: (): Promise<Record<string, string>> => HookProblems(),
  /** The skills a request in workspace would be offered (the workspace's,
   *  then the user's; '' for the user's alone) and the warnings about those
   *  left out. */
  skills: (workspace: string): Promise<SkillsFound> => Skills(workspace),
  hookEvents: (): Promise<string[]> => HookEvents(),
  /** The saved commands a request in workspace may start from, and why any were left out. */
  savedCommands: (workspace: string): Promise<CommandsFound> => SavedCommands(workspace),
  addHook: (h: Omit<Hook, 'id'>): Promise<Hook> => AddHook(hooks.Hook.createFrom({ ...h, id: '' })),
  removeHook: (id: string): Promise<void> => RemoveHook(id),
  /** Runs one hook once on a sample of its event in workspace ('' for the
   *  home folder) and says what Shrimp makes of its answer. */
  tryHook: (id: string, workspace: string): Promise<HookTrial> => TryHook(id, app.HookSample.createFrom({ workspace })),
  setHookEnabled: (id: string, enabled: boolean): Promise<void> => SetHookEnabled(id, enabled),
  /** Gives a hook seconds to run (0: the default, 5; at most 600). */
  setHookTimeout: (id: string, seconds: number): Promise<void> => SetHookTimeout(id, seconds),
  /** The user's own Claude Code settings file (~/.claude/settings.json). */
  claudeSettingsFile: (): Promise<string> => ClaudeSettingsFile(),
  /** Adds the hooks of a Claude Code settings file ('' for the user's own),
   *  or with dry only says what it would add, hold and skip. */
  importClaudeHooks: (path: string, dry: boolean): Promise<HooksImport> => ImportClaudeHooks(path, dry),
}

/** Splits a text area into its non-empty lines (arguments, one per line). */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
}

/** Parses KEY=VALUE lines into an env map; a line without = is an error. */
export function envLines(text: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const l of lines(text)) {
    const i = l.indexOf('=')
    if (i <= 0) throw new Error(`env line "${l}": write KEY=VALUE`)
    env[l.slice(0, i).trim()] = l.slice(i + 1)
  }
  return env
}

/** Parses "Name: value" lines into HTTP headers; a line without : is an error. */
export function headerLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const l of lines(text)) {
    const i = l.indexOf(':')
    if (i <= 0) throw new Error(`header line "${l}": write Name: value`)
    headers[l.slice(0, i).trim()] = l.slice(i + 1).trim()
  }
  return headers
}
