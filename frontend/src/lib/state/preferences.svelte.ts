import { settings, type ChatDefaultsView } from '../backend/chat'

/** Where a Shrimp before the forty-second session kept the defaults (the web view's localStorage, outside the data directory). */
const LEGACY = { model: 'shrimp.defaultModel', approve: 'shrimp.defaultApprove', workspace: 'shrimp.workspace' } as const

function legacy(): Partial<ChatDefaultsView> {
  const out: Partial<ChatDefaultsView> = {}
  try {
    for (const [k, key] of Object.entries(LEGACY)) {
      const v = localStorage.getItem(key)
      if (v !== null) out[k as keyof ChatDefaultsView] = v
    }
  } catch {
    // storage unavailable: nothing to move
  }
  return out
}

/**
 * The user's defaults for new chats (model, approval mode, the last chat's
 * folder), kept in the data directory's settings so that `shrimp chat`
 * takes the same model and another data directory has its own; load()
 * reads them. Defaults an older Shrimp kept in localStorage are moved
 * there on the first load. Until loaded, and when the backend cannot be
 * reached, the built-in defaults (ask, no folder) hold. The look of the
 * window (theme, dismissed tour cards) stays in localStorage.
 */
class Preferences {
  model = $state('')
  approve = $state('ask')
  /** The workspace of the last chat ('' until the user chose one). */
  #workspace = $state('')
  /** Whether the stored defaults have been read (or could not be). */
  loaded = $state(false)

  get workspace(): string {
    return this.#workspace
  }

  set workspace(dir: string) {
    this.#workspace = dir
    void this.#save()
  }

  #loading: Promise<void> | null = null

  /** Reads the stored defaults; the window calls it when it opens (calls while one reads share it). */
  load(): Promise<void> {
    this.#loading ??= this.#read().finally(() => (this.#loading = null))
    return this.#loading
  }

  async #read(): Promise<void> {
    this.loaded = false // what is held may be stale until read again
    let d: ChatDefaultsView = { model: '', approve: 'ask', workspace: '' }
    const old = legacy()
    try {
      d = await settings.chatDefaults()
      if (Object.keys(old).length > 0) {
        d = { model: d.model || old.model || '', approve: d.approve !== 'ask' ? d.approve : old.approve || 'ask', workspace: d.workspace || old.workspace || '' }
        await settings.setChatDefaults(d)
        for (const key of Object.values(LEGACY)) localStorage.removeItem(key)
      }
    } catch {
      // the defaults stay the built-in ones for this run
    }
    this.model = d.model
    this.approve = d.approve || 'ask'
    this.#workspace = d.workspace
    this.loaded = true
  }

  /** Whether a tour card was dismissed (remembered for this user). */
  toured(id: string): boolean {
    try {
      return localStorage.getItem(`shrimp.tour.${id}`) === 'done'
    } catch {
      return false
    }
  }

  endTour(id: string): void {
    try {
      localStorage.setItem(`shrimp.tour.${id}`, 'done')
    } catch {
      // shown again next time
    }
  }

  set(model: string, approve: string): void {
    this.model = model
    this.approve = approve
    void this.#save()
  }

  async #save(): Promise<void> {
    try {
      await settings.setChatDefaults({ model: this.model, approve: this.approve, workspace: this.#workspace })
    } catch {
      // they last for this run
    }
  }
}

export const preferences = new Preferences()
