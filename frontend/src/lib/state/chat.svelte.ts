import { changes, chat, procedures, sessions, type UndoFile } from '../backend/chat'
import { preferences } from './preferences.svelte'
import type { BusEvent, ProcedureSummary, ToolCallData, ToolResultData } from '../backend/types'
import type { Attached } from '../attached'

/** An image of a request as the chat shows it: its data URL while it is the window's own, else loaded by its SHA-256. */
export interface ShownImage {
  name: string
  url?: string
  sha256?: string
  width?: number
  height?: number
  bytes?: number
}

/** The images a run's start (agent:run-started) or a call's result (agent:tool-result) names. */
export function startedImages(d: unknown): ShownImage[] | undefined {
  const list = (d as { images?: unknown } | null)?.images
  if (!Array.isArray(list) || list.length === 0) return undefined
  return list.map((i: Record<string, unknown>) => ({
    name: String(i.name ?? 'image'),
    sha256: typeof i.sha256 === 'string' ? i.sha256 : undefined,
    width: Number(i.width ?? 0) || undefined,
    height: Number(i.height ?? 0) || undefined,
    bytes: Number(i.bytes ?? 0) || undefined,
  }))
}

/**
 * One entry of the conversation as the chat view shows it. replaced: the
 * run (seq of its start) of the request a retry or an edit replaced, on it
 * and each item that followed it; kept, shown folded.
 */
export type ChatItem = ChatEntry & { replaced?: number }

type ChatEntry =
  /** run: the seq of the request's agent:run-started, once it started. */
  | { kind: 'user'; text: string; run?: number; images?: ShownImage[] }
  | { kind: 'assistant'; text: string; done: boolean }
  | { kind: 'thinking'; text: string }
  | { kind: 'tool'; id: string; name: string; args: string; output: string; error: string; durationMs: number; done: boolean; denied: boolean; repeated?: boolean; refetched?: boolean; progress?: string; asking?: boolean; images?: ShownImage[] }
  | { kind: 'recalled'; procedures: ProcedureSummary[]; declined: string[]; followed?: string }
  | { kind: 'learned'; procedure: ProcedureSummary; merged: boolean }
  | { kind: 'marked-wrong'; procedure: ProcedureSummary; reason: string; dropped: boolean }
  | { kind: 'notice'; level: 'error' | 'warning'; text: string }
  /** A check the user set up (a pre-run-end hook) sent the model back to work after its answer: what it was told; time counts them in the run. */
  | { kind: 'sent-back'; text: string; time: number }
  | { kind: 'restored'; files: UndoFile[]; untracked: string[]; elsewhere: string[]; redo: boolean }

/** Items a long loaded session shows at first, and adds per "show earlier": rendering all of a session of thousands of runs made it slow to open and to scroll. */
export const CHAT_PAGE = 300

/** The conversation of the current session, built from its bus events. */
/** Events that say the model answered after a load, or the run ended. */
const ANSWERED = new Set(['agent:model-loaded', 'agent:thinking', 'agent:token', 'agent:tool-call', 'agent:response', 'agent:run-ended'])

export class ChatState {
  sessionId = $state('')
  items = $state<ChatItem[]>([])
  /** The first item the chat view shows (always a request); earlier ones wait for showEarlier. */
  from = $state(0)
  running = $state(false)
  error = $state('')
  model = $state('')
  workspace = $state('')
  approve = $state(preferences.approve)
  /** Set while Ollama loads the model before it answers (agent:model-loading), until the next event of the run. */
  loading = $state<{ model: string; loaded: number; numCtx: number; since: number } | null>(null)
  /** Set while a check the user set up runs (hook:running: a pre-run-end hook on the answer, a slow hook before or after a call), until the run's next event. */
  checking = $state<{ event: string; hook: string; since: number } | null>(null)
  /** Set while a hook the user set up runs before the request's run starts (session-start, pre-request), from its preparing event until it is done. */
  preparing = $state<{ event: string; hook: string; since: number } | null>(null)
  /** When the run last showed something (its request sent, an event of it): the chat says what it waits for after a while. */
  quietSince = $state(0)
  /** What the message box holds, kept while another view is shown. */
  draft = $state('')
  /** The images attached in the message box, kept with the draft. */
  draftImages = $state<Attached[]>([])
  /** How many files each request changed that can still be undone, by the seq of its run's start. */
  changed = $state<Record<number, number>>({})
  /** How many files taking back the last undo would put back (0: nothing to redo). */
  redoable = $state(0)
  /** Another process (a terminal's `shrimp chat --session`) is running a request in this session. */
  elsewhere = $state(false)
  /** The request being edited in the message box: sending replaces it (and the later ones). */
  editing = $state<{ run: number; later: number } | null>(null)

  // Events that arrive before Send has told us the new session's id.
  #early: BusEvent[] = []
  #sending = false
  /** The token of the request being sent, which its preparing events carry. */
  #token = ''
  /** What the message box held when an edit began, given back when it is cancelled. */
  #before: { draft: string; images: Attached[] } = { draft: '', images: [] }
  /** The last seq shown of the session: opening a session can publish events (its interrupted run closed) that the opened list already holds. */
  #seq = 0

  /**
   * Sends a request in the current session (or a new one). It reports
   * whether the request was taken: one that was not is taken out of the
   * conversation again, for the composer to give back to the user.
   */
  async send(text: string, images: Attached[] = []): Promise<boolean> {
    if (this.editing) {
      const { run } = this.editing
      const ok = await this.replace(run, text, images, false)
      if (ok) this.editing = null
      return ok
    }
    return this.#send(text, images)
  }

  /**
   * Retries the request whose run started at seq run as it was asked (its
   * images too), in the model chosen now; it and the requests after it
   * leave the model's history (shown folded). undo: their file changes are
   * put back first.
   */
  async retry(run: number, undo: boolean): Promise<boolean> {
    const it = this.items.find((i) => i.kind === 'user' && i.run === run && !i.replaced)
    if (!it || it.kind !== 'user') return false
    return this.#send(it.text, [], { run, undo, asIs: true, images: it.images })
  }

  /** Sends text (and images) in place of the request whose run started at seq run, as retry does. */
  replace(run: number, text: string, images: Attached[], undo: boolean): Promise<boolean> {
    return this.#send(text, images, { run, undo })
  }

  /** The requests after the one whose run started at seq run, not replaced: a retry or an edit of it replaces them too. */
  later(run: number): number {
    const at = this.items.findIndex((i) => i.kind === 'user' && i.run === run && !i.replaced)
    return at < 0 ? 0 : this.items.slice(at + 1).filter((i) => i.kind === 'user' && !i.replaced).length
  }

  /** Puts the request whose run started at seq run in the message box, to be edited and sent in its place. */
  async edit(run: number): Promise<void> {
    const it = this.items.find((i) => i.kind === 'user' && i.run === run && !i.replaced)
    if (!it || it.kind !== 'user' || this.running) return
    const images: Attached[] = []
    for (const img of it.images ?? []) {
      try {
        const url = img.url ?? (img.sha256 ? await sessions.image(img.sha256) : '')
        if (!url) continue
        const type = url.slice(5, url.indexOf(';'))
        images.push({ name: img.name, type, url, data: url.slice(url.indexOf(',') + 1), bytes: img.bytes ?? 0 })
      } catch {
        // No longer kept: the edit goes without it, as the box shows.
      }
    }
    if (!this.editing) this.#before = { draft: this.draft, images: this.draftImages }
    this.editing = { run, later: this.later(run) }
    this.draft = it.text
    this.draftImages = images
  }

  /** Leaves the edit: the message box holds again what it held before. */
  cancelEdit(): void {
    if (!this.editing) return
    this.editing = null
    this.draft = this.#before.draft
    this.draftImages = this.#before.images
  }

  /** Sends a request; replace: in place of the request whose run started at run, asked as it was when asIs (shown with images). */
  async #send(text: string, images: Attached[], replace?: { run: number; undo: boolean; asIs?: boolean; images?: ShownImage[] }): Promise<boolean> {
    const t = text.trim()
    if (!t || this.running) return false
    this.error = ''
    // A replaced request folds away at once (the event that says so
    // comes back with the run), and unfolds when the request is refused.
    if (replace) this.#fold(replace.run)
    const at = this.items.length
    const shown = replace?.images ?? (images.length > 0 ? images.map((a) => ({ name: a.name, url: a.url, bytes: a.bytes })) : undefined)
    this.items.push({ kind: 'user', text: t, images: shown })
    this.running = true
    this.quietSince = Date.now()
    this.#sending = true
    const token = (this.#token = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`)
    try {
      const id = await chat.send({
        token,
        session_id: this.sessionId,
        // A retry sends no text: the backend asks the request as it kept it.
        text: replace?.asIs ? '' : t,
        workspace: this.workspace,
        model: this.model,
        approve: this.approve,
        images: images.map((a) => ({ name: a.name, data: a.data })),
        replace: replace?.run ?? 0,
        undo_replaced: replace?.undo ?? false,
      })
      this.#prepared()
      this.sessionId = id
      this.elsewhere = false // taken: nothing else runs in it
      const early = this.#early.filter((e) => e.session === id)
      this.#early = []
      this.#sending = false
      this.apply(early)
      return true
    } catch (e) {
      this.#prepared()
      this.#sending = false
      this.running = false
      this.error = String(e)
      const it = this.items[at]
      if (it?.kind === 'user' && it.text === t) this.items.splice(at, 1)
      if (replace) for (const it of this.items) if (it.replaced === replace.run) it.replaced = undefined
      return false
    }
  }

  /**
   * Folds the request whose run started at seq run and what followed it,
   * up to a request not yet started (the retry itself) and but for the
   * notices of an undo at their end (the retry's own, which says what
   * the files are now). Folded already: nothing changes.
   */
  #fold(run: number): void {
    const from = this.items.findIndex((i) => i.kind === 'user' && i.run === run)
    if (from < 0 || this.items[from].replaced) return
    let to = this.items.findIndex((i, j) => j > from && i.kind === 'user' && i.run === undefined)
    if (to < 0) to = this.items.length
    while (to > from + 1 && this.items[to - 1].kind === 'restored') to--
    for (let i = from; i < to; i++) this.items[i].replaced ??= run
  }

  /**
   * The user's "not for this request" on a recalled procedure's badge: the
   * request that recalled it is not handed it again (until it is restored).
   */
  async decline(id: string): Promise<void> {
    let at = this.items.length - 1
    while (at >= 0) {
      const it = this.items[at]
      if (it.kind === 'recalled' && it.procedures.some((p) => p.id === id)) break
      at--
    }
    let request = ''
    for (let i = at - 1; i >= 0 && !request; i--) {
      const it = this.items[i]
      if (it.kind === 'user') request = it.text
    }
    if (at < 0 || !request) return
    try {
      await procedures.decline(id, request, this.sessionId)
      const it = this.items[at]
      if (it.kind === 'recalled' && !it.declined.includes(id)) it.declined.push(id)
    } catch (e) {
      this.error = String(e)
    }
  }

  /** Cancels the running request. */
  async stop(): Promise<void> {
    if (!this.running) return
    try {
      // Hooks that run before the request starts (a session-start hook
      // installing dependencies) are stopped through its token: there is
      // no run yet, and a new session has no id.
      if (this.#sending && this.#token) await chat.stopSending(this.#token)
      else if (this.sessionId) await chat.stop(this.sessionId)
    } catch (e) {
      this.error = String(e)
    }
  }

  /** Shows a stored session; sending continues it. */
  load(sessionId: string, events: BusEvent[]): void {
    if (this.running) return
    this.sessionId = sessionId
    this.items = []
    this.error = ''
    this.#seq = 0
    this.changed = {}
    this.redoable = 0
    this.elsewhere = false
    this.cancelEdit() // the box gives back what it held before the edit
    for (const e of events) {
      this.#seq = Math.max(this.#seq, e.seq ?? 0)
      if (e.type === 'agent:run-started') {
        this.items.push({ kind: 'user', text: String((e.data as Record<string, unknown>).text ?? ''), run: e.seq, images: startedImages(e.data) })
      } else {
        this.#one(e)
      }
    }
    // A run whose end was never recorded (the app was killed) is over too.
    for (const it of this.items) if (it.kind === 'assistant') it.done = true
    this.running = false
    this.from = this.#request(this.items.length - CHAT_PAGE)
    void this.refreshChanged()
  }

  /** Asks which requests of the session have file changes that can be undone. */
  async refreshChanged(): Promise<void> {
    const id = this.sessionId
    if (!id) return
    let changed: Record<number, number> = {}
    let redoable = 0
    try {
      changed = await chat.changedRuns(id)
      const redo = await chat.redoPlan(id)
      redoable = redo.files.filter(changes).length
    } catch {
      // Unknown: no request offers an undo, nor a redo.
    }
    if (this.sessionId === id) {
      this.changed = changed
      this.redoable = redoable
    }
  }

  /** Shows up to CHAT_PAGE more of the earlier items. */
  showEarlier(): void {
    this.from = this.#request(this.from - CHAT_PAGE)
  }

  /** The start of the request that item i belongs to (0 when i is before the first). */
  #request(i: number): number {
    if (i <= 0) return 0
    while (i > 0 && this.items[i].kind !== 'user') i--
    return i
  }

  /** Starts a new, empty session. */
  reset(): void {
    if (this.running) return
    this.sessionId = ''
    this.items = []
    this.from = 0
    this.error = ''
    this.#seq = 0
    this.changed = {}
    this.redoable = 0
    this.elsewhere = false
    this.cancelEdit() // the box gives back what it held before the edit
  }

  /** Applies a hook's preparing event: the request being sent waits for it before its run starts. */
  prepare(p: { token: string; event: string; hook: string; done: boolean }): void {
    if (!this.#sending || p.token !== this.#token) return
    this.quietSince = Date.now()
    this.preparing = p.done ? null : { event: p.event, hook: p.hook, since: Date.now() }
  }

  /** The request was taken or refused: no hook of it runs any more. */
  #prepared(): void {
    if (this.preparing) this.quietSince = Date.now()
    this.preparing = null
    this.#token = ''
  }

  /** Applies a batch of bus events. */
  apply(batch: BusEvent[]): void {
    for (const e of batch) {
      if (!e.session) continue
      if (e.session !== this.sessionId) {
        if (this.#sending && this.#early.length < 5000) this.#early.push(e)
        continue
      }
      if (e.seq > 0) {
        if (e.seq <= this.#seq) continue
        this.#seq = e.seq
      }
      this.#one(e)
      // A terminal's run whose process was killed is ended from here (the
      // window finds it gone), on the bus.
      if (e.type === 'agent:run-ended') this.elsewhere = false
    }
  }

  /**
   * Applies what another process (`shrimp chat --session` in a terminal)
   * does in the session open here while nothing runs in it from this
   * window: its requests, calls and answers show as they come. Nothing
   * here acts on them (its approvals and questions are the terminal's).
   */
  applyForeign(batch: BusEvent[]): void {
    if (this.running || this.#sending || !this.sessionId) return
    for (const e of batch) {
      if (e.session !== this.sessionId || e.seq <= this.#seq || e.type.startsWith('approval:')) continue
      this.#seq = e.seq
      if (e.type === 'agent:run-started') {
        this.items.push({ kind: 'user', text: String((e.data as Record<string, unknown>)?.text ?? ''), run: e.seq, images: startedImages(e.data) })
        this.elsewhere = true
      } else {
        this.#one(e)
        if (e.type === 'agent:run-ended') this.elsewhere = false
      }
    }
  }

  #last<K extends ChatItem['kind']>(kind: K): Extract<ChatItem, { kind: K }> | undefined {
    const it = this.items[this.items.length - 1]
    return it && it.kind === kind ? (it as Extract<ChatItem, { kind: K }>) : undefined
  }

  /** The latest tool item of a call id (ids repeat from run to run). */
  #tool(id: unknown): Extract<ChatItem, { kind: 'tool' }> | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i]
      if (it.kind === 'tool' && it.id === id) return it
    }
    return undefined
  }

  #one(e: BusEvent): void {
    const d = e.data as Record<string, unknown>
    this.quietSince = Date.now()
    if (e.type === 'agent:model-loading') {
      this.loading = { model: String(d.model ?? ''), loaded: Number(d.loaded ?? 0), numCtx: Number(d.num_ctx ?? 0), since: Date.now() }
      return
    }
    // A check runs on the answer until the run says anything else.
    this.checking = e.type === 'hook:running' ? { event: String(d.event ?? ''), hook: String(d.hook ?? ''), since: Date.now() } : null
    // The load is over when the model answers (or the run ends); what the
    // run says while it prepares the call (a warning, a compaction) does
    // not end it.
    if (ANSWERED.has(e.type) || (e.type === 'agent:error' && d.kind !== 'warning')) this.loading = null
    switch (e.type) {
      case 'agent:run-started': {
        // The request typed in this window: its run, for undoing its files.
        for (let i = this.items.length - 1; i >= 0; i--) {
          const it = this.items[i]
          if (it.kind === 'user') {
            it.run ??= e.seq
            // What the backend made of the images: their size and the
            // key they are kept under.
            const got = startedImages(e.data)
            if (it.images && got?.length === it.images.length) it.images = got.map((g, j) => ({ ...g, url: it.images![j].url }))
            break
          }
        }
        break
      }
      case 'session:request-replaced':
        this.#fold(Number(d.run ?? 0))
        if (this.editing?.run === Number(d.run ?? 0)) this.editing = null
        break
      case 'files:restored':
        this.items.push({ kind: 'restored', files: (d.files as UndoFile[]) ?? [], untracked: (d.untracked as string[]) ?? [], elsewhere: (d.elsewhere as string[]) ?? [], redo: !!d.redo })
        void this.refreshChanged()
        break
      case 'agent:thinking': {
        const th = this.#last('thinking')
        if (th) th.text += String(d.text)
        else this.items.push({ kind: 'thinking', text: String(d.text) })
        break
      }
      case 'agent:token': {
        const a = this.#last('assistant')
        if (a && !a.done) a.text += String(d.text)
        else this.items.push({ kind: 'assistant', text: String(d.text), done: false })
        break
      }
      case 'agent:tool-call': {
        const c = d as unknown as ToolCallData
        const a = this.#last('assistant')
        if (a) a.done = true
        this.items.push({ kind: 'tool', id: c.id, name: c.name, args: JSON.stringify(c.arguments, null, 2), output: '', error: '', durationMs: 0, done: false, denied: false })
        break
      }
      case 'tool:progress': {
        // How far a running call has come, as its tool says (an MCP server).
        const it = this.#tool(d.id)
        if (it && !it.done) it.progress = progressText(Number(d.progress ?? 0), Number(d.total ?? 0), String(d.message ?? ''))
        break
      }
      case 'approval:requested':
      case 'approval:decided': {
        // A call waiting for the user's answer has not started to run.
        const it = this.#tool(d.id)
        if (it) it.asking = e.type === 'approval:requested' && !!d.asked
        break
      }
      case 'agent:tool-result': {
        const r = d as unknown as ToolResultData
        const it = this.#tool(r.id)
        if (it) {
          it.output = r.output ?? ''
          it.error = r.error ?? ''
          it.durationMs = r.duration_ms
          it.denied = !!r.denied
          it.repeated = !!r.repeated
          it.refetched = !!r.refetched
          it.images = startedImages(r) // a picture fs.read showed the model
          it.done = true
          it.asking = false
        }
        break
      }
      case 'agent:response': {
        const a = this.#last('assistant')
        if (a) {
          a.text = String(d.text)
          a.done = true
        } else if (d.text) {
          this.items.push({ kind: 'assistant', text: String(d.text), done: true })
        }
        break
      }
      case 'memory:procedure-recalled':
        this.items.push({ kind: 'recalled', procedures: (d.procedures as ProcedureSummary[]) ?? [], declined: [] })
        break
      case 'memory:procedure-learned':
        // The moment procedural memory takes something in: said in the
        // conversation, with the way to the procedure to check or forget it.
        this.items.push({ kind: 'learned', procedure: d as unknown as ProcedureSummary, merged: false })
        break
      case 'memory:procedure-updated': {
        // The request's run repeated a stored procedure's chain. When it was
        // recalled for the request, its badge says so already; when not
        // (recall turned it down), this is the only sign.
        const p = d as unknown as ProcedureSummary
        let recalled = false
        for (let i = this.items.length - 1; i >= 0 && this.items[i].kind !== 'user'; i--) {
          const it = this.items[i]
          if (it.kind === 'recalled' && it.procedures.some((r) => r.id === p.id)) recalled = true
        }
        if (!recalled) this.items.push({ kind: 'learned', procedure: p, merged: true })
        break
      }
      case 'memory:procedure-forgotten':
        // The model's forget tool (the user's own forget is not of a session).
        if (!d.by_user) {
          this.items.push({ kind: 'marked-wrong', procedure: d.procedure as ProcedureSummary, reason: String(d.reason ?? ''), dropped: !!d.dropped })
        }
        break
      case 'metrics:run-recorded': {
        // The run's measures say which recalled procedure it followed (the
        // same tools in the same order): its badge says so.
        const id = typeof d.followed === 'string' ? d.followed : ''
        for (let i = this.items.length - 1; id && i >= 0; i--) {
          const it = this.items[i]
          if (it.kind === 'recalled' && it.procedures.some((p) => p.id === id)) {
            it.followed = id
            break
          }
        }
        break
      }
      case 'memory:procedure-declined': {
        // The run did not use a procedure it was handed: say so on its badge.
        const p = d.procedure as ProcedureSummary | undefined
        const id = String(p?.id ?? '')
        let shown = false
        for (let i = this.items.length - 1; i >= 0; i--) {
          const it = this.items[i]
          if (it.kind === 'recalled' && it.procedures.some((p) => p.id === id)) {
            if (!it.declined.includes(id)) it.declined.push(id)
            shown = !it.replaced
            break
          }
        }
        // A retry's: the attempt it replaces (folded) was steered by it.
        if (!shown && d.by_user && p) {
          this.items.push({ kind: 'notice', level: 'warning', text: `The procedure ${p.chain} is no longer offered for this request: the attempt retried followed it (Procedures → Restore offers it again).` })
        }
        break
      }
      case 'agent:sent-back':
        this.items.push({ kind: 'sent-back', text: String(d.text ?? ''), time: Number(d.time ?? 0) })
        break
      case 'agent:error': {
        // What the model wrote before (a reply that only said what it would
        // do, and was sent back) is finished: the next turn's text is another.
        const a = this.#last('assistant')
        if (a) a.done = true
        this.items.push({ kind: 'notice', level: d.kind === 'warning' ? 'warning' : 'error', text: String(d.message) })
        break
      }
      case 'agent:run-ended':
        this.running = false
        void this.refreshChanged()
        // This run's answers: those after its request. (Every item, at each
        // run's end, made opening a session of 1,000 runs take seconds.)
        for (let i = this.items.length - 1; i >= 0 && this.items[i].kind !== 'user'; i--) {
          const it = this.items[i]
          if (it.kind === 'assistant') it.done = true
        }
        if (d.status === 'cancelled') this.items.push({ kind: 'notice', level: 'warning', text: 'Stopped.' })
        if (d.status === 'interrupted') {
          // Shrimp was closed or killed mid-run; opening the session ended it.
          for (let i = this.items.length - 1; i >= 0 && this.items[i].kind !== 'user'; i--) {
            const it = this.items[i]
            if (it.kind === 'tool' && !it.done) {
              it.done = true
              it.error ||= 'no result was recorded'
            }
          }
          this.items.push({ kind: 'notice', level: 'warning', text: 'Interrupted: Shrimp was closed before this request finished. A tool that was running may have done part of its work.' })
        }
        break
    }
  }
}

/** A call's progress as its card says it: "2 of 3 (67%): message", or the message alone. */
export function progressText(progress: number, total: number, message: string): string {
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1))
  const howFar = total > 0 ? `${n(progress)} of ${n(total)} (${Math.round((100 * progress) / total)}%)` : progress > 0 ? n(progress) : ''
  return [howFar, message].filter(Boolean).join(': ')
}
