import { procedures } from '../backend/chat'
import type { BusEvent, Comparison, ProcedureView } from '../backend/types'

export type SortKey = 'recent' | 'used' | 'saved' | 'misleading'

/** The procedure browser's list, search and actions. */
export class ProceduresState {
  items = $state<ProcedureView[]>([])
  query = $state('')
  filter = $state<'all' | 'active' | 'forgotten' | 'stale'>('all')
  sort = $state<SortKey>('recent')
  period = $state(30) // days of runs the summary compares (0: all)
  worth = $state<Comparison | null>(null)
  /** Bumped when a run is measured: open pages reload their runs. */
  revision = $state(0)
  loading = $state(false)
  error = $state('')

  get shown(): ProcedureView[] {
    const list = this.filter === 'all' ? [...this.items] : this.items.filter((p) => p.status === this.filter)
    const saved = this.worth?.saved_turns ?? {}
    switch (this.sort) {
      case 'used':
        return list.sort((a, b) => b.uses - a.uses)
      case 'saved':
        return list.sort((a, b) => (saved[b.id] ?? 0) - (saved[a.id] ?? 0))
      case 'misleading':
        return list.filter((p) => p.demerits > 0).sort((a, b) => b.demerits - a.demerits || String(b.last_used).localeCompare(String(a.last_used)))
    }
    return list
  }

  async loadWorth(): Promise<void> {
    try {
      this.worth = await procedures.worth(this.period)
    } catch (e) {
      this.error = String(e)
    }
  }

  async load(): Promise<void> {
    this.loading = true
    this.error = ''
    try {
      const q = this.query.trim()
      this.items = q ? await procedures.search(q) : await procedures.list()
    } catch (e) {
      this.error = String(e)
    } finally {
      this.loading = false
    }
  }

  async forget(id: string): Promise<void> {
    await this.#update(() => procedures.forget(id))
  }

  async restore(id: string): Promise<void> {
    await this.#update(() => procedures.restore(id))
  }

  async #update(op: () => Promise<ProcedureView>): Promise<void> {
    this.error = ''
    try {
      const p = await op()
      this.items = this.items.map((x) => (x.id === p.id ? Object.assign(p, { score: x.score }) : x))
    } catch (e) {
      this.error = String(e)
    }
  }

  /** Reloads when memory changed. */
  apply(batch: BusEvent[]): void {
    if (batch.some((e) => e.type.startsWith('memory:procedure-') && e.type !== 'memory:procedure-recalled')) {
      void this.load()
    }
    if (batch.some((e) => e.type === 'metrics:run-recorded')) {
      this.revision++
      void this.loadWorth()
    }
  }
}
