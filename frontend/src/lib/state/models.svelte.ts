import { models, type InMemory } from '../backend/chat'
import type { BusEvent, ModelInfo, PullProgress } from '../backend/types'

/** The models view: installed models and pulls in progress. */
export class ModelsState {
  items = $state<ModelInfo[]>([])
  /** The models Ollama holds in memory, by name (asked with the list). */
  inMemory = $state<Record<string, InMemory>>({})
  pulls = $state<Record<string, PullProgress>>({})
  loading = $state(false)
  error = $state('')
  // Loads overlap (a finished pull and a status change each start one):
  // only the latest started may set the list, or an answer from before a
  // pull finished could land last and hide the new model.
  private loads = 0

  async load(): Promise<void> {
    const mine = ++this.loads
    this.loading = true
    this.error = ''
    try {
      const items = await models.list()
      if (mine === this.loads) this.items = items
      await this.loadMemory()
    } catch (e) {
      if (mine === this.loads) this.error = String(e)
    } finally {
      if (mine === this.loads) this.loading = false
    }
  }

  async pull(name: string): Promise<void> {
    const n = name.trim()
    if (!n) return
    this.error = ''
    try {
      await models.pull(n)
      this.pulls[n] ??= { model: n, status: 'starting', completed: 0, total: 0, percent: 0, done: false, error: '' }
    } catch (e) {
      this.error = String(e)
    }
  }

  async cancel(name: string): Promise<void> {
    try {
      await models.cancel(name)
    } catch (e) {
      this.error = String(e)
    }
  }

  /** Asks which models are in memory (an Ollama that cannot say leaves none shown). */
  async loadMemory(): Promise<void> {
    try {
      this.inMemory = Object.fromEntries((await models.inMemory()).map((m) => [m.name, m]))
    } catch {
      this.inMemory = {}
    }
  }

  /** Takes a model out of memory now; the list says so once Ollama does. */
  async unload(name: string): Promise<void> {
    this.error = ''
    try {
      await models.unload(name)
    } catch (e) {
      this.error = String(e)
    }
    await this.loadMemory()
  }

  async remove(name: string): Promise<void> {
    this.error = ''
    try {
      await models.remove(name)
      this.items = this.items.filter((m) => m.name !== name)
    } catch (e) {
      this.error = String(e)
    }
  }

  apply(batch: BusEvent[]): void {
    let reload = false
    for (const e of batch) {
      if (e.type === 'model:pull-progress') {
        const p = e.data as PullProgress
        this.pulls[p.model] = p
        if (p.done && !p.error) reload = true
      } else if (e.type === 'ollama:status') {
        reload = true
      }
    }
    if (reload) void this.load()
  }
}
