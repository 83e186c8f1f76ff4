import { approvals } from '../backend/chat'
import type { ApprovalRequestData, BusEvent } from '../backend/types'

/** A tool call waiting for the user's answer. */
export interface PendingApproval extends ApprovalRequestData {
  session: string
}

/** Approval requests waiting for an answer; they survive switching views. */
export class ApprovalsState {
  pending = $state<PendingApproval[]>([])
  error = $state('')

  apply(batch: BusEvent[]): void {
    for (const e of batch) {
      const d = e.data as ApprovalRequestData
      if (e.type === 'approval:requested' && !this.pending.some((p) => p.id === d.id)) {
        this.pending.push({ ...d, session: e.session })
      } else if (e.type === 'approval:decided') {
        this.pending = this.pending.filter((p) => p.id !== d.id)
      }
    }
  }

  /** The request the dialog shows: the oldest. */
  get current(): PendingApproval | undefined {
    return this.pending[0]
  }

  async answer(id: string, allow: boolean, always = false, reason = ''): Promise<void> {
    this.error = ''
    try {
      await approvals.resolve({ id, allow, always, reason })
      this.pending = this.pending.filter((p) => p.id !== id)
    } catch (e) {
      this.error = String(e)
      this.pending = this.pending.filter((p) => p.id !== id)
    }
  }
}
