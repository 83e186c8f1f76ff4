import { system } from '../backend/system'
import type { BusEvent, OllamaStatus } from '../backend/types'

/** The event type the Go side publishes when Ollama's status changes. */
export const OLLAMA_STATUS = 'ollama:status'

/** What the status bar knows about the Ollama server. */
export class OllamaState {
  status = $state<OllamaStatus | null>(null)
  loading = $state(true)
  error = $state('')

  async load(): Promise<void> {
    try {
      this.status = await system.ollamaStatus()
      this.error = ''
    } catch (e) {
      this.error = String(e)
    } finally {
      this.loading = false
    }
  }

  async refresh(): Promise<void> {
    this.loading = true
    try {
      this.status = await system.refresh()
    } finally {
      this.loading = false
    }
  }

  /** Applies the newest ollama:status event in a batch. */
  apply(events: BusEvent[]): void {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i].type === OLLAMA_STATUS) {
        this.status = events[i].data as OllamaStatus
        this.loading = false
        return
      }
    }
  }
}
