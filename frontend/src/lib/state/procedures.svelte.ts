import { procedures } from '../backend/chat'
import type { BusEvent, ProcedureView } from '../backend/types'

/** The procedure browser's list, search and actions. */
export class ProceduresState {
  items = $state<ProcedureView[]>([])
  query = $state('')
  filter = $state<'all' | 'active' | 'forgotten' | 'stale'>('all')
  loading = $state(false)
  error = $state('')

  get shown(): ProcedureView[] {
    return this.filter === 'all' ? this.items : this.items.filter((p) => p.status === this.filter)
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
  }
}
