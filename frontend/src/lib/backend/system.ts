// The only module that imports the System bindings.
import { Info as InfoCall, OllamaStatus as StatusCall, Refresh } from '../../../wailsjs/go/desktop/System'
import type { Info, OllamaStatus } from './types'

export const system = {
  info: (): Promise<Info> => InfoCall(),
  ollamaStatus: (): Promise<OllamaStatus> => StatusCall(),
  refresh: (): Promise<OllamaStatus> => Refresh(),
}
