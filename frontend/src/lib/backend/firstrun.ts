// The only module that imports the FirstRun bindings.
import { CreateWorkspace, FirstWorkspace, Models, Ollama, RecentWorkspaces, RecommendedModels, StartOllama } from '../../../wailsjs/go/desktop/FirstRun'
import type { app, desktop, model } from '../../../wailsjs/go/models'

export type OllamaSetup = desktop.OllamaSetup
export type ModelChoice = desktop.ModelChoice
export type Recommended = app.RecommendedModel
export type RecentWorkspace = desktop.RecentWorkspace

export const firstRun = {
  ollama: (): Promise<OllamaSetup> => Ollama(),
  startOllama: (): Promise<model.Status> => StartOllama(),
  models: (): Promise<ModelChoice[]> => Models(),
  recommended: (): Promise<Recommended[]> => RecommendedModels(),
  firstWorkspace: (): Promise<string> => FirstWorkspace(),
  createWorkspace: (dir: string): Promise<string> => CreateWorkspace(dir),
  /** Folders earlier sessions (the window's and the terminal's) worked in, latest first. */
  recentWorkspaces: async (): Promise<RecentWorkspace[]> => RecentWorkspaces(),
}

/** What each approval mode does, in one line for beside its picker. */
export const APPROVAL_HELP: Record<string, string> = {
  ask: 'Asks you before anything that changes files, runs commands or reaches the web; reads run without asking only if you allowed them.',
  read: 'Reads in the workspace run without asking; everything else is asked about.',
  all: 'Runs every tool without asking: only for a workspace you trust the model with.',
  none: 'No tools at all: the model can only answer.',
}
