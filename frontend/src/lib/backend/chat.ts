// The only module that imports the Chat, Approvals, Procedures and Sessions bindings.
import { DefaultWorkspace, Models, Send, Stop } from '../../../wailsjs/go/desktop/Chat'
import { Resolve } from '../../../wailsjs/go/desktop/Approvals'
import { Forget, List as ListProcedures, Restore, Search } from '../../../wailsjs/go/desktop/Procedures'
import { Events, List as ListSessions } from '../../../wailsjs/go/desktop/Sessions'
import { desktop } from '../../../wailsjs/go/models'
import type { ModelInfo, ProcedureView, SessionInfo, StoredEvent } from './types'

export const chat = {
  send: (req: { session_id: string; text: string; workspace: string; model: string; approve: string }) =>
    Send(desktop.SendRequest.createFrom(req)).then((r) => r.session_id),
  stop: (sessionId: string): Promise<void> => Stop(sessionId),
  models: (): Promise<ModelInfo[]> => Models(),
  defaultWorkspace: (): Promise<string> => DefaultWorkspace(),
}

export const approvals = {
  resolve: (a: { id: string; allow: boolean; always: boolean; reason: string }): Promise<void> =>
    Resolve(desktop.Answer.createFrom(a)),
}

export const procedures = {
  list: (): Promise<ProcedureView[]> => ListProcedures(),
  search: (q: string): Promise<ProcedureView[]> => Search(q),
  forget: (id: string): Promise<ProcedureView> => Forget(id),
  restore: (id: string): Promise<ProcedureView> => Restore(id),
}

export const sessions = {
  list: (): Promise<SessionInfo[]> => ListSessions(),
  events: (id: string, after: number): Promise<StoredEvent[]> => Events(id, after),
}
