import type { app, commands, desktop, doctor, hooks, mcp, metrics, model, share, skills, store, tool } from '../../../wailsjs/go/models'

/** One bus event, in the JSON form shared by the store, the CLI and the window. */
export interface BusEvent<D = unknown> {
  seq: number
  /** When set: the first seq of the streamed pieces this one event stands for (a session opened from the store). */
  first_seq?: number
  session: string
  type: string
  time: string
  data: D
}

export type OllamaStatus = model.Status
export type Info = desktop.Info

export type ModelInfo = model.Info
export type ProcedureView = desktop.ProcedureView
/** What an import of a procedures file added (or would), held already and refused, with why. */
export type ImportReport = share.Imported
/** A model's sampling settings as Settings shows them. */
export type ParamsView = desktop.ParamsView
/** How far the embedding model has come with the stored procedures (Settings). */
export type EmbedStatus = desktop.EmbedStatusView
export type StoredEvent = desktop.StoredEvent
export type SessionInfo = store.Session
/** The start of the sessions list (or of a search's) and how many there are in all. */
export type SessionList = desktop.SessionList
export type RuleView = desktop.RuleView
export type UsageSummary = desktop.UsageSummary
export type Fact = store.Fact
export type WorkingNote = store.WorkingEntry

/** Data of model:pull-progress. */
export interface PullProgress {
  model: string
  status: string
  completed: number
  total: number
  percent: number
  done: boolean
  error: string
}

/** Data of agent:tool-call. */
export interface ToolCallData {
  id: string
  name: string
  arguments: unknown
}

/** Data of agent:tool-result. */
export interface ToolResultData {
  id: string
  name: string
  output: string
  error: string
  duration_ms: number
  denied?: boolean
  /** The call gave what the same call gave earlier in the run: it told the model nothing new. */
  repeated?: boolean
  /** The call gave what the same call gave earlier, after that result was left out to fit the model's context. */
  refetched?: boolean
  /** Pictures the call showed the model (name, type, size, sha256). */
  images?: { name: string; type: string; width: number; height: number; bytes: number; sha256: string }[]
}

/** Data of approval:requested. */
export interface ApprovalRequestData {
  id: string
  /** Names this question (only in the gate's own request, not the event):
   *  an allow must name it, so it never answers a later question under
   *  the same call id. */
  question?: string
  tool: string
  arguments: unknown
  read_only: boolean
  /** The workspace the call runs in; "always" is remembered for it. */
  workspace?: string
  /** The user is asked. The gate announces every call; one the mode or a
   *  rule decides comes unasked, and nothing waits for an answer. */
  asked?: boolean
  /** The whole arguments as the user reads them: never cut, control characters escaped. */
  shown?: string
  preview?: string
  /** What the call does (for shell.run: the parsed command). */
  effects?: string[]
  /** What deserves a second look. */
  warnings?: string[]
  /** No stored rule answers this call (a command that does not parse). */
  must_ask?: boolean
  /** What the session read from outside, when that is why no rule answers. */
  outside?: string
}

/** A procedure as memory events describe it. */
export interface ProcedureSummary {
  id: string
  trigger: string
  tools: string[]
  chain: string
  uses: number
  demerits: number
  score?: number
}

export type McpServer = desktop.ServerView
export type McpServerInput = desktop.ServerInput
export type McpStatus = mcp.Status
export type McpTool = mcp.Tool
export type PromptChoice = desktop.PromptChoice
export type ResourceChoice = desktop.ResourceChoice
export type ToolQuestion = app.ToolQuestion
export type QuestionField = tool.Field
export type Hook = hooks.Hook
export type HooksImport = app.HooksImport
/** What a hook did with a sample of its event (Extensions → Hooks → Try). */
export type HookTrial = app.HookTrial
export type CommandsFound = { commands: Omit<commands.Command, 'convertValues'>[]; warnings: string[] }
/** What Extensions.Skills returns (the generated class without its helpers). */
export type SkillsFound = Pick<skills.Found, 'skills' | 'warnings'>
export type DoctorResult = doctor.Result
export type ProcedureRuns = desktop.ProcedureRuns
export type RunMetrics = metrics.Run
export type Comparison = metrics.Comparison
/** One side of a Comparison: its runs and their medians. */
export type RunGroup = metrics.Group
