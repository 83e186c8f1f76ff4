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

/** Approval requests waiting for an answer; they survive switching views. */
export class ApprovalsState {
  pending = $state<PendingApproval[]>([])
  error = $state('')

  apply(batch: BusEvent[]): void {
    for (const e of batch) {
      const d = e.data as ApprovalRequestData
      if (e.type === 'approval:requested' && !this.pending.some((p) => p.id === d.id)) {
        this.pending.push({ ...d, session: e.session, exact: false })
        void this.readExact(d.id)
      } else if (e.type === 'approval:decided') {
        this.pending = this.pending.filter((p) => p.id !== d.id)
      }
    }
  }

  /** Replaces the recorded request with the gate's own. */
  private async readExact(id: string): Promise<void> {
    let update: Partial<PendingApproval>
    try {
      const r = await approvals.request(id)
      update = { ...r, exact: true, problem: undefined }
    } catch (e) {
      update = { problem: `The exact request could not be read (${String(e)}); what is shown may have parts hidden, so it can only be denied.` }
    }
    this.pending = this.pending.map((p) => (p.id === id ? { ...p, ...update } : p))
  }

  /** The request the dialog shows: the oldest. */
  get current(): PendingApproval | undefined {
    return this.pending[0]
  }

  async answer(id: string, allow: boolean, always = false, reason = ''): Promise<void> {
    this.error = ''
    const p = this.pending.find((q) => q.id === id)
    if (allow && p && !p.exact) {
      this.error = 'Only what will run can be allowed: the exact request has not been read.'
      return
    }
    try {
      await approvals.resolve({ id, allow, always, reason })
      this.pending = this.pending.filter((p) => p.id !== id)
    } catch (e) {
      this.error = String(e)
      this.pending = this.pending.filter((p) => p.id !== id)
    }
  }
}
