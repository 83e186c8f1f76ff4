// The only module that imports the Chat, Approvals, Procedures and Sessions bindings.
import { ChangedRuns, DefaultWorkspace, Instructions, Models, OpenInstructions, PickWorkspace, Redo, RedoDiff, RedoPlan, Send, Stop, StopSending, Undo, UndoDiff, UndoPlan, WorkspaceNotes } from '../../../wailsjs/go/desktop/Chat'
import { AnswerQuestion, Question, Request as ApprovalRequest, Resolve } from '../../../wailsjs/go/desktop/Approvals'
import {
  Decline,
  DefaultExportFile,
  Export as ExportProcedures,
  Forget,
  Import as ImportProcedures,
  List as ListProcedures,
  PickFile,
  Restore,
  Runs,
  Search,
  Worth,
} from '../../../wailsjs/go/desktop/Procedures'
import { Delete, Events, Export, Image as SessionImage, List as ListSessions, Open, Rename, Search as SearchSessions } from '../../../wailsjs/go/desktop/Sessions'
import {
  ChatDefaults,
  Diagnostics,
  EmbedModel,
  EmbedStatus as GetEmbedStatus,
  IdleTimeout,
  KeepAlive,
  MaxTools,
  MaxTurns,
  ModelParams,
  NumCtx,
  RebuildIndex,
  RevokeCallRule,
  Rules,
  SetChatDefaults,
  SetEmbedModel,
  SetIdleTimeout,
  SetKeepAlive,
  SetMaxTools,
  SetMaxTurns,
  SetModelParams,
  SetNumCtx,
  SetOllamaHost,
  SetRule,
  SetShellSandbox,
  SetThink,
  ShellSandbox,
  Think,
} from '../../../wailsjs/go/desktop/Settings'
import { CancelPull, Delete as DeleteModel, InMemory as InMemoryModels, List as ListModels, Pull, Unload } from '../../../wailsjs/go/desktop/Models'
import { Usage } from '../../../wailsjs/go/desktop/Sessions'
import { ApproveFact, DeleteFact, FactNote, Facts, SearchFacts, SetFact, Working } from '../../../wailsjs/go/desktop/Memory'
import { desktop } from '../../../wailsjs/go/models'
import type { ApprovalRequestData, BusEvent, Comparison, DoctorResult, EmbedStatus, Fact, ImportReport, ParamsView, ProcedureRuns, ModelInfo, ProcedureView, RuleView, SessionInfo, SessionList, StoredEvent, ToolQuestion, UsageSummary, WorkingNote } from './types'

/** Turns a stored event (data as JSON text) into a bus event. */
export function fromStored(e: StoredEvent): BusEvent {
  let data: unknown = null
  try {
    data = JSON.parse(e.data)
  } catch {
    data = e.data
  }
  const out: BusEvent = { seq: e.seq, session: e.session, type: e.type, time: String(e.time), data }
  if (e.first_seq) out.first_seq = e.first_seq
  return out
}

export const chat = {
  /**
   * Starts a request; images go as their name and base64 data (attach checks them again).
   * replace (the seq of a request's run start) makes it a retry or an edit of that request:
   * it and the requests after it leave the model's history; with no text it is asked again
   * as it was; undo_replaced puts back the files they changed first.
   */
  send: (req: {
    session_id: string
    text: string
    workspace: string
    model: string
    approve: string
    images?: { name: string; data: string }[]
    replace?: number
    undo_replaced?: boolean
    /** The window's name for the request, given back in the preparing events of the hooks it waits for. */
    token?: string
  }) => Send(desktop.SendRequest.createFrom({ replace: 0, undo_replaced: false, ...req, images: req.images ?? [] })).then((r) => r.session_id),
  stop: (sessionId: string): Promise<void> => Stop(sessionId),
  /** Stops a request sent with token whose hooks still run before its run starts. */
  stopSending: (token: string): Promise<void> => StopSending(token),
  models: (): Promise<ModelInfo[]> => Models(),
  defaultWorkspace: (): Promise<string> => DefaultWorkspace(),
  pickWorkspace: (current: string): Promise<string> => PickWorkspace(current),
  instructions: (workspace: string): Promise<{ files: InstructionFile[]; warnings: string[] }> =>
    Instructions(workspace).then((v) => ({ files: v.files ?? [], warnings: v.warnings ?? [] })),
  openInstructions: (workspace: string, path: string): Promise<void> => OpenInstructions(workspace, path),
  /** What to know of a folder as the workspace before a request runs there (commands always asked, changes not undone). */
  workspaceNotes: (workspace: string): Promise<string[]> => WorkspaceNotes(workspace).then((v) => v ?? []),
  /** How many files each request of a session changed that can still be undone, by the seq of its run's start. */
  changedRuns: (session: string): Promise<Record<number, number>> =>
    ChangedRuns(session).then((rs) => Object.fromEntries((rs ?? []).map((r) => [r.run, r.files]))),
  /** What undoing the file changes of a session's requests from run on would do; nothing changes. */
  undoPlan: (session: string, run: number): Promise<UndoView> => UndoPlan(session, run).then(undoView),
  /** The unified diff undoing would make to one file of the plan ('' when it would leave it). */
  undoDiff: (session: string, run: number, workspace: string, path: string): Promise<string> => UndoDiff(session, run, workspace, path),
  /** Undoes them but for the files in keep (left as they are), and with the shared ones in keep marked anyway; what was done, file by file. */
  undo: (session: string, run: number, keep: { workspace: string; path: string; anyway?: boolean }[] = []): Promise<UndoView> =>
    Undo(session, run, keep.map((k) => desktop.UndoRef.createFrom(k))).then(undoView),
  /** What taking back the session's last undo would do (no files: nothing to redo); nothing changes. */
  redoPlan: (session: string): Promise<UndoView> => RedoPlan(session).then(undoView),
  /** The unified diff taking back the last undo would make to one file. */
  redoDiff: (session: string, workspace: string, path: string): Promise<string> => RedoDiff(session, workspace, path),
  /** Takes back the last undo but for the files in keep; what was done, file by file. */
  redo: (session: string, keep: { workspace: string; path: string }[] = []): Promise<UndoView> =>
    Redo(session, keep.map((k) => desktop.UndoRef.createFrom(k))).then(undoView),
}

/** What undoing does, or did, to one file. */
export interface UndoFile {
  workspace: string
  path: string
  action: 'restore' | 'remove' | 'same' | 'leave'
  why: string
  /** Left because another chat may have made the change; undoing it anyway does would. */
  shared?: boolean
  would?: 'restore' | 'remove' | ''
}

/** Whether the plan changes the file: puts it back or removes it (undo.File.Changes). */
export const changes = (f: UndoFile): boolean => f.action === 'restore' || f.action === 'remove'

/** What undoing a session's file changes from a request on would do, or did. */
export interface UndoView {
  run: number
  files: UndoFile[]
  untracked: string[]
  /** MCP calls: their changes in the workspace are among the files, what they did elsewhere is not known. */
  elsewhere: string[]
  changes: boolean
  /** Procedures those requests taught, for the user to judge. */
  taught: { id: string; chain: string }[]
  /** A redo's: the files get what the requests wrote again. */
  redo: boolean
}

function undoView(v: desktop.UndoView): UndoView {
  return { run: v.run, files: (v.files ?? []) as UndoFile[], untracked: v.untracked ?? [], elsewhere: v.elsewhere ?? [], changes: !!v.changes, taught: v.taught ?? [], redo: !!v.redo }
}

/** Whether shell commands run confined to the workspace, and why not. */
export interface SandboxView {
  on: boolean
  wanted: boolean
  detail: string
}

/** One AGENTS.md file (or another agent's rule) in force for a workspace. */
export interface InstructionFile {
  path: string
  bytes: number
  /** "user", "folder", "subfolder", "rule" (another agent's: agent) or "rules on request" (their list) */
  scope: string
  /** the agent a rule was kept for: Cursor, GitHub Copilot, Windsurf */
  agent?: string
  used: number
}

export const approvals = {
  /** A session's pending request as the tool will run it, nothing redacted. */
  request: (session: string, id: string): Promise<ApprovalRequestData> => ApprovalRequest(session, id) as unknown as Promise<ApprovalRequestData>,
  resolve: (a: { session: string; id: string; question: string; allow: boolean; always: boolean; exact: boolean; reason: string }): Promise<void> =>
    Resolve(desktop.Answer.createFrom(a)),
  /** The question a tool of a session's call waits on, as the tool asked it. */
  question: (session: string, id: string): Promise<ToolQuestion> => Question(session, id),
  /** Answers it: accept (with the values typed), decline or cancel. */
  answerQuestion: (session: string, id: string, action: 'accept' | 'decline' | 'cancel', values: Record<string, string>): Promise<void> =>
    AnswerQuestion(session, id, action, values),
}

export const procedures = {
  list: (): Promise<ProcedureView[]> => ListProcedures(),
  search: (q: string): Promise<ProcedureView[]> => Search(q),
  forget: (id: string): Promise<ProcedureView> => Forget(id),
  restore: (id: string): Promise<ProcedureView> => Restore(id),
  decline: (id: string, request: string, session: string): Promise<ProcedureView> => Decline(id, request, session),
  runs: (id: string): Promise<ProcedureRuns> => Runs(id),
  worth: (days: number): Promise<Comparison> => Worth(days),
  /** The file Export suggests (in the home folder). */
  defaultFile: (): Promise<string> => DefaultExportFile(),
  /** The system's file dialog: where to save (save) or what to import; '' when cancelled. */
  pickFile: (save: boolean): Promise<string> => PickFile(save),
  /** Writes the procedures recall may offer to path (mode 0600); how many. */
  exportTo: (path: string, examples: boolean): Promise<number> => ExportProcedures(path, examples),
  /** Reads a procedures file and adds what passes its checks (dry: only says what it would). */
  importFrom: (path: string, dry: boolean): Promise<ImportReport> => ImportProcedures(path, dry),
}

export const sessions = {
  /** The limit most recently updated sessions, and how many there are. */
  list: (limit: number): Promise<SessionList> => ListSessions(limit),
  /** The limit most recently updated sessions that mention q, and how many do. */
  search: (q: string, limit: number): Promise<SessionList> => SearchSessions(q, limit),
  events: (id: string, after: number): Promise<BusEvent[]> => Events(id, after).then((es) => es.map(fromStored)),
  open: (id: string): Promise<{ session: SessionInfo; events: BusEvent[] }> =>
    Open(id).then((x) => ({ session: x.session, events: x.events.map(fromStored) })),
  export: (id: string, format: 'md' | 'json'): Promise<string> => Export(id, format),
  remove: (id: string): Promise<void> => Delete(id),
  /** Names a session in place of its first request's words; the name kept (one line, secrets out, cut to a title's length). */
  rename: (id: string, title: string): Promise<string> => Rename(id, title),
  /** An image attached to a request, by the SHA-256 its run's start names, as a data URL. */
  image: (sha256: string): Promise<string> => SessionImage(sha256),
}

/** The turn limit as Settings shows it. */
export type TurnsView = { turns: number; default: number; most: number; from_env: boolean }

/** What a new chat starts with, kept in the data directory's settings. */
export type ChatDefaultsView = { model: string; approve: string; workspace: string }

export const settings = {
  chatDefaults: (): Promise<ChatDefaultsView> => ChatDefaults(),
  setChatDefaults: (d: ChatDefaultsView): Promise<void> => SetChatDefaults(d),
  rules: (): Promise<RuleView[]> => Rules(),
  setRule: (workspace: string, tool: string, rule: string): Promise<void> => SetRule(workspace, tool, rule),
  revokeCallRule: (workspace: string, tool: string, call: string): Promise<void> => RevokeCallRule(workspace, tool, call),
  numCtx: (model: string): Promise<number> => NumCtx(model),
  setNumCtx: (model: string, n: number): Promise<void> => SetNumCtx(model, n),
  /** A model's sampling settings: the user's, its Modelfile's, and what each does. */
  modelParams: (model: string): Promise<ParamsView> => ModelParams(model),
  /** Sets them from what was typed, by name ('' for the model's own); the settings kept. */
  setModelParams: (model: string, values: Record<string, string>): Promise<Record<string, number>> => SetModelParams(model, values),
  setOllamaHost: (host: string): Promise<string> => SetOllamaHost(host),
  idleTimeout: (): Promise<string> => IdleTimeout(),
  setIdleTimeout: (value: string): Promise<string> => SetIdleTimeout(value),
  /** How long Ollama keeps the model loaded after a request: '' (Ollama's own), a duration or 'forever'. */
  keepAlive: (): Promise<string> => KeepAlive(),
  setKeepAlive: (value: string): Promise<string> => SetKeepAlive(value),
  /** What requests ask of a reasoning model's thinking: '' (the model's own), on, off, low, medium or high. */
  think: (): Promise<string> => Think(),
  /** Sets and saves it; what is kept. */
  setThink: (value: string): Promise<string> => SetThink(value),
  embedModel: (): Promise<string> => EmbedModel(),
  setEmbedModel: (name: string): Promise<string> => SetEmbedModel(name),
  embedStatus: (): Promise<EmbedStatus> => GetEmbedStatus(),
  shellSandbox: (): Promise<SandboxView> => ShellSandbox(),
  setShellSandbox: (on: boolean): Promise<SandboxView> => SetShellSandbox(on),
  /** The model turns a request may take, its default and most, and whether SHRIMP_MAX_TURNS sets it. */
  maxTurns: (): Promise<TurnsView> => MaxTurns(),
  /** Saves it (0: the default); what is in force. */
  setMaxTurns: (n: number): Promise<TurnsView> => SetMaxTurns(n),
  maxTools: (): Promise<number> => MaxTools(),
  setMaxTools: (n: number): Promise<void> => SetMaxTools(n),
  diagnostics: (): Promise<DoctorResult[]> => Diagnostics(),
  rebuildIndex: (): Promise<void> => RebuildIndex(),
}

export const models = {
  list: (): Promise<ModelInfo[]> => ListModels(),
  pull: (name: string): Promise<void> => Pull(name),
  cancel: (name: string): Promise<void> => CancelPull(name),
  remove: (name: string): Promise<void> => DeleteModel(name),
  /** The models Ollama holds in memory now, with until when. */
  inMemory: (): Promise<InMemory[]> => InMemoryModels().then((v) => v ?? []),
  /** Takes a model out of Ollama's memory now (`ollama stop`). */
  unload: (name: string): Promise<void> => Unload(name),
}

/** A model Ollama holds in memory (/api/ps). */
export type InMemory = { name: string; size: number; size_vram: number; context_length: number; until: string; forever: boolean }

export const usage = {
  summary: (): Promise<UsageSummary> => Usage(),
}

export const memoryApi = {
  facts: (): Promise<Fact[]> => Facts(),
  search: (q: string): Promise<Fact[]> => SearchFacts(q),
  set: (key: string, value: string): Promise<Fact> => SetFact(key, value),
  /** What to know of a fact stored (a secret goes into every prompt), or ''. */
  note: (key: string, value: string): Promise<string> => FactNote(key, value),
  remove: (key: string): Promise<void> => DeleteFact(key),
  approve: (key: string): Promise<Fact> => ApproveFact(key),
  working: (session: string): Promise<WorkingNote[]> => Working(session),
}
