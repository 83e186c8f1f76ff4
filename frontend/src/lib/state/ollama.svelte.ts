import { firstRun, type ModelChoice } from '../backend/firstrun'
import { system } from '../backend/system'
import type { BusEvent, OllamaStatus } from '../backend/types'

/** The event type the Go side publishes when Ollama's status changes. */
export const OLLAMA_STATUS = 'ollama:status'

/** What the status bar knows about the Ollama server. */
export class OllamaState {
  status = $state<OllamaStatus | null>(null)
  loading = $state(true)
  error = $state('')
  /** What Ollama says of each installed model (/api/show: tools, embedding); null while unknown. */
  choices = $state<ModelChoice[] | null>(null)
  #askedFor = ''

  /** Asks Ollama about the installed models once per model list (the chat picker and Settings read choices). */
  followChoices(): void {
    const key = this.status?.reachable ? this.status.models.join(',') : ''
    if (key === this.#askedFor) return
    this.#askedFor = key
    if (!key) {
      this.choices = null
      return
    }
    firstRun.models().then(
      (c) => {
        if (this.#askedFor === key) this.choices = c
      },
      () => {
        if (this.#askedFor === key) this.choices = null
      },
    )
  }

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
