import { sessions } from '../backend/chat'
import type { BusEvent } from '../backend/types'
import { counted } from '../plural'

/** The areas of the event types the harness publishes, for the timeline's filter. */
export const AREAS = ['agent', 'approval', 'memory', 'context', 'files', 'session', 'tool', 'mcp', 'hook', 'metrics', 'usage', 'model', 'bus', 'ollama'] as const

/**
 * Every bus event the window received, newest last, capped. It notices a
 * gap in a session's seq (events the bridge dropped) and backfills it from
 * the store.
 */
export class Timeline {
  events = $state.raw<BusEvent[]>([])
  readonly cap: number
  #lastSeq = new Map<string, number>()
  #seen = new Set<string>()
  #backfill: (session: string, after: number) => Promise<BusEvent[]>

  constructor(cap = 10_000, backfill = (s: string, after: number) => sessions.events(s, after)) {
    this.cap = cap
    this.#backfill = backfill
  }

  apply(batch: BusEvent[]): void {
    const fresh: BusEvent[] = []
    for (const e of batch) {
      const key = `${e.session}/${e.seq}`
      if (e.session && this.#seen.has(key)) continue
      if (e.session && e.seq > 0) {
        this.#seen.add(key)
        const last = this.#lastSeq.get(e.session)
        // An opened session's streamed pieces come as one event spanning their seqs.
        if (last !== undefined && (e.first_seq ?? e.seq) > last + 1) void this.#heal(e.session, last, e.first_seq ?? e.seq)
        this.#lastSeq.set(e.session, Math.max(last ?? 0, e.seq))
      }
      fresh.push(e)
    }
    if (fresh.length === 0) return
    const next = this.events.concat(fresh)
    this.events = next.length > this.cap ? next.slice(next.length - this.cap) : next
    // What was seen is remembered for the events kept (and as many more),
    // not for every event since the window opened.
    if (this.#seen.size > 2 * this.cap) {
      this.#seen = new Set(this.events.filter((e) => e.session && e.seq > 0).map((e) => `${e.session}/${e.seq}`))
    }
  }

  /** How many events the duplicate check remembers (at most about twice the cap). */
  get remembered(): number {
    return this.#seen.size
  }

  async #heal(session: string, after: number, upTo: number): Promise<void> {
    try {
      const missing = (await this.#backfill(session, after)).filter((e) => e.seq < upTo && !this.#seen.has(`${e.session}/${e.seq}`))
      if (missing.length === 0) return
      for (const e of missing) this.#seen.add(`${e.session}/${e.seq}`)
      const merged = this.events.concat(missing)
      merged.sort((a, b) => (a.session === b.session ? a.seq - b.seq : a.time < b.time ? -1 : 1))
      this.events = merged.length > this.cap ? merged.slice(merged.length - this.cap) : merged
    } catch {
      // The store is unreachable; the live stream goes on with the gap.
    }
  }
}

/** "3 s ago", "5 min ago", "2 h ago", else the date. */
export function relativeTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return ''
  const s = Math.max(0, Math.round((now - t) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return new Date(t).toLocaleDateString()
}

/** An event's data in a line, as the Timeline shows it. */
export function summary(data: unknown): string {
  if (data == null) return ''
  const d = data as Record<string, unknown>
  // An MCP server's status (mcp:server-changed): which, what it is now, why.
  if (typeof d.name === 'string' && typeof d.state === 'string' && typeof d.transport === 'string') return server(d)
  for (const k of ['text', 'message', 'name', 'tool', 'status', 'subscriber']) {
    if (typeof d[k] === 'string' && d[k]) return String(d[k])
  }
  if (d.procedure && typeof d.procedure === 'object') return String((d.procedure as Record<string, unknown>).chain ?? '')
  if (Array.isArray(d.procedures)) return d.procedures.map((p) => (p as Record<string, unknown>).chain).join('; ')
  if (typeof d.run === 'number' && typeof d.messages === 'number')
    return `retried or edited: request ${d.run} and those after it left the model's history (${counted(Number(d.messages), 'message')}${d.notes ? `; ${counted(Number(d.notes), 'working note')} they set dropped` : ''})`
  if (Array.isArray(d.files)) return d.files.map((f) => `${(f as Record<string, unknown>).action} ${(f as Record<string, unknown>).path}`).join(', ')
  // A use of the model beside the loop's (a prompt hook's question, a
  // server's sampling) and the token counts: what they cost.
  if (typeof d.hook === 'string' && d.hook) return typeof d.prompt_tokens === 'number' ? `${d.hook} asked ${d.model}: ${tokens(d)}` : d.hook
  if (typeof d.server === 'string' && typeof d.prompt_tokens === 'number') return `the ${d.server} server had ${d.model} write: ${tokens(d)}`
  if (d.run && typeof d.run === 'object' && d.session && typeof d.session === 'object')
    return `${tokens(d.run as Record<string, unknown>)} (the session: ${tokens(d.session as Record<string, unknown>)})`
  return JSON.stringify(d).slice(0, 160)
}

/** An MCP server's status in a line: "files: running, 14 tools", "notes: restarting after 2 failures: the server exited". */
function server(d: Record<string, unknown>): string {
  const tools = Array.isArray(d.tools) ? d.tools.length : 0
  const failures = Number(d.failures ?? 0)
  let line = `the ${d.name} server: ${d.state}`
  if (d.state === 'running') line += `, ${counted(tools, 'tool')}`
  if (failures > 0 && d.state !== 'running') line += ` after ${counted(failures, 'failure')} in a row`
  if (typeof d.last_error === 'string' && d.last_error && d.state !== 'running') line += `: ${d.last_error}`
  return line.length > 300 ? line.slice(0, 299) + '…' : line
}

/** Prompt and completion tokens as the Timeline says them: "1,024 tokens in, 12 out". */
function tokens(d: Record<string, unknown>): string {
  return `${Number(d.prompt_tokens ?? 0).toLocaleString('en')} tokens in, ${Number(d.completion_tokens ?? 0).toLocaleString('en')} out`
}
