import { approvals } from '../backend/chat'
import type { ApprovalRequestData, BusEvent } from '../backend/types'

/** A tool call waiting for the user's answer. */
export interface PendingApproval extends ApprovalRequestData {
  session: string
  /**
   * The request is the gate's own, as the tool will run it. Until then it
   * is the recorded event's, whose secrets are redacted, and a redaction
   * may hide more than the secret: it can be denied, not allowed.
   */
  exact: boolean
  /** Why the exact request could not be read. */
  problem?: string
}

/** Approval requests waiting for an answer; they survive switching views.
 *  A request is named by its session and call id: call ids repeat from
 *  session to session. */
export class ApprovalsState {
  pending = $state<PendingApproval[]>([])
  error = $state('')

  apply(batch: BusEvent[]): void {
    for (const e of batch) {
      const d = e.data as ApprovalRequestData
      const same = (p: PendingApproval) => p.id === d.id && p.session === e.session
      if (e.type === 'approval:requested') {
        // A call the mode or a rule decided is announced unasked: no
        // dialog (it would flash, and take the keyboard, until its
        // decision came in the next batch).
        if (!d.asked) continue
        // A call id asked again is another question (ids repeat from run
        // to run): what was shown for the earlier one goes.
        this.pending = this.pending.filter((p) => !same(p))
        this.pending.push({ ...d, session: e.session, exact: false })
        void this.readExact(e.session, d.id)
      } else if (e.type === 'approval:decided') {
        this.pending = this.pending.filter((p) => !same(p))
      }
    }
  }

  /** Replaces the recorded request with the gate's own. */
  private async readExact(session: string, id: string): Promise<void> {
    let update: Partial<PendingApproval>
    try {
      const r = await approvals.request(session, id)
      update = { ...r, exact: true, problem: undefined }
    } catch (e) {
      update = { problem: `The exact request could not be read (${String(e)}); what is shown may have parts hidden, so it can only be denied.` }
    }
    this.pending = this.pending.map((p) => (p.id === id && p.session === session ? { ...p, ...update, session } : p))
  }

  /** The request the dialog shows: the oldest. */
  get current(): PendingApproval | undefined {
    return this.pending[0]
  }

  /** Answers a request; always: any call of the tool in the workspace,
   * exact: this exact call (a shell command as shown). */
  async answer(session: string, id: string, allow: boolean, always = false, reason = '', exact = false): Promise<void> {
    this.error = ''
    const same = (q: PendingApproval) => q.id === id && q.session === session
    const p = this.pending.find(same)
    if (allow && p && !p.exact) {
      this.error = 'Only what will run can be allowed: the exact request has not been read.'
      return
    }
    try {
      await approvals.resolve({ session, id, question: p?.question ?? '', allow, always, exact, reason })
    } catch (e) {
      this.error = String(e)
      // The question answered ended and another under the same id may be
      // pending: show that one, to be read and answered afresh.
      try {
        const r = await approvals.request(session, id)
        if (r.question !== p?.question) {
          this.pending = this.pending.map((q) => (same(q) ? { ...q, ...r, exact: true, problem: undefined, session } : q))
          return
        }
      } catch {
        // nothing pending under that id any more
      }
    }
    this.pending = this.pending.filter((q) => !same(q))
  }
}
