import type { model, desktop } from '../../../wailsjs/go/models'

/** One bus event, in the JSON form shared by the store, the CLI and the window. */
export interface BusEvent<D = unknown> {
  seq: number
  session: string
  type: string
  time: string
  data: D
}

export type OllamaStatus = model.Status
export type Info = desktop.Info
