import { approvals } from '../backend/chat'
import type { BusEvent, ToolQuestion } from '../backend/types'

/** A tool's question waiting for the user's answer (an MCP server's elicitation). */
export interface PendingQuestion {
  session: string
  id: string
  tool: string
  /** As the tool asked it, read from the backend (the event's copy is the record's, redacted). */
  question?: ToolQuestion
  /** Why it could not be read. */
  problem?: string
}

/** Questions tools ask during their calls; each ends when answered or its
 *  call ends (tool:answered). Named by session and call id. */
export class QuestionsState {
  pending = $state<PendingQuestion[]>([])
  error = $state('')

  apply(batch: BusEvent[]): void {
    for (const e of batch) {
      const d = e.data as { id: string; tool: string }
      const same = (p: PendingQuestion) => p.id === d.id && p.session === e.session
      if (e.type === 'tool:question') {
        this.pending = this.pending.filter((p) => !same(p))
        this.pending.push({ session: e.session, id: d.id, tool: d.tool })
        void this.read(e.session, d.id)
      } else if (e.type === 'tool:answered') {
        this.pending = this.pending.filter((p) => !same(p))
      }
    }
  }

  private async read(session: string, id: string): Promise<void> {
    let update: Partial<PendingQuestion>
    try {
      update = { question: await approvals.question(session, id) }
    } catch (e) {
      update = { problem: `The question could not be read (${String(e)}); it can only be dismissed.` }
    }
    this.pending = this.pending.map((p) => (p.id === id && p.session === session ? { ...p, ...update } : p))
  }

  /** The question the dialog shows: the oldest. */
  get current(): PendingQuestion | undefined {
    return this.pending[0]
  }

  /** Answers the current question; an answer that does not fit is kept
   *  waiting with the reason in error. */
  async answer(p: PendingQuestion, action: 'accept' | 'decline' | 'cancel', values: Record<string, string> = {}): Promise<boolean> {
    this.error = ''
    try {
      await approvals.answerQuestion(p.session, p.id, action, values)
    } catch (e) {
      this.error = String(e)
      return false
    }
    this.pending = this.pending.filter((q) => !(q.id === p.id && q.session === p.session))
    return true
  }
}
