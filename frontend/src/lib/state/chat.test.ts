import { describe, expect, it, vi } from 'vitest'

const send = vi.fn(async () => ({ session_id: 's1' }))
const stop = vi.fn(async () => {})
const stopSending = vi.fn(async (_token: string) => {})
vi.mock('../../../wailsjs/go/desktop/Chat', () => ({
  Send: (...a: unknown[]) => send(...(a as [])),
  Stop: (...a: unknown[]) => stop(...(a as [])),
  StopSending: (token: string) => stopSending(token),
  Models: vi.fn(),
  DefaultWorkspace: vi.fn(),
}))
vi.mock('../../../wailsjs/go/desktop/Approvals', () => ({ Resolve: vi.fn(async () => {}) }))
const decline = vi.fn(async () => ({}))
vi.mock('../../../wailsjs/go/desktop/Procedures', () => ({ List: vi.fn(), Search: vi.fn(), Forget: vi.fn(), Restore: vi.fn(), Decline: (...a: unknown[]) => decline(...(a as [])) }))
vi.mock('../../../wailsjs/go/desktop/Models', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Settings', () => ({}))
vi.mock('../../../wailsjs/go/desktop/Sessions', () => ({ List: vi.fn(), Events: vi.fn(), Image: vi.fn(async () => 'data:image/png;base64,c3RvcmVk') }))

import { CHAT_PAGE, ChatState, progressText } from './chat.svelte'
import type { BusEvent } from '../backend/types'

let seq = 0
const ev = (type: string, data: unknown, session = 's1'): BusEvent => ({ seq: ++seq, session, type, time: '', data })

describe('ChatState', () => {
  it('keeps a reply sent back for only saying what it would do apart from the answer that follows', () => {
    const c = new ChatState()
    c.load('s9', [])
    c.apply([
      ev('agent:run-started', { text: 'how many files are there?' }, 's9'),
      ev('agent:token', { text: 'Let me check the files.' }, 's9'),
      ev('agent:error', { kind: 'warning', message: 'the model said what it would do next but called no tool, so it was asked to go on' }, 's9'),
      ev('agent:token', { text: 'There is ' }, 's9'),
    ])
    expect(c.items.map((i) => i.kind)).toEqual(['assistant', 'notice', 'assistant'])
    const promise = c.items[0]
    expect(promise.kind === 'assistant' && promise.done).toBe(true)
    c.apply([ev('agent:token', { text: 'one file.' }, 's9'), ev('agent:response', { text: 'There is one file.' }, 's9'), ev('agent:run-ended', { status: 'responded' }, 's9')])
    expect(c.items.map((i) => (i.kind === 'assistant' ? i.text : i.kind))).toEqual(['Let me check the files.', 'notice', 'There is one file.'])
  })
  it('sends attached images with the request, shows them, and keeps what the backend made of them', async () => {
    const c = new ChatState()
    send.mockClear()
    const shot = { name: 'shot.png', type: 'image/png', data: 'cG5nIQ==', url: 'data:image/png;base64,cG5nIQ==', bytes: 4 }
    await c.send('what is this?', [shot])
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ text: 'what is this?', images: [{ name: 'shot.png', data: 'cG5nIQ==' }] }))
    c.apply([ev('agent:run-started', { text: 'what is this?', images: [{ name: 'shot.png', type: 'image/png', width: 64, height: 48, bytes: 4, sha256: 'ab12' }] })])
    const user = c.items[0]
    expect(user.kind === 'user' && user.images).toEqual([{ name: 'shot.png', url: shot.url, sha256: 'ab12', width: 64, height: 48, bytes: 4 }])
    // A stored session's request names its images by their key.
    c.apply([ev('agent:run-ended', { status: 'responded' })])
    const loaded = new ChatState()
    loaded.load('s1', [ev('agent:run-started', { text: 'what is this?', images: [{ name: 'shot.png', sha256: 'ab12', width: 64, height: 48 }] })])
    const again = loaded.items[0]
    expect(again.kind === 'user' && again.images).toEqual([{ name: 'shot.png', sha256: 'ab12', width: 64, height: 48, bytes: undefined }])

    // A picture fs.read showed the model comes with the call's result.
    loaded.load('s1', [
      ev('agent:run-started', { text: 'look at shot.png' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.read', arguments: { path: 'shot.png' } }),
      ev('agent:tool-result', { id: 'c1', name: 'fs.read', output: '[the image shot.png is attached]', error: '', duration_ms: 2, images: [{ name: 'shot.png', sha256: 'cd34', width: 8, height: 8, bytes: 90 }] }),
    ])
    const tool = loaded.items[1]
    expect(tool.kind === 'tool' && tool.images).toEqual([{ name: 'shot.png', sha256: 'cd34', width: 8, height: 8, bytes: 90 }])
  })

  it('builds the conversation from a run’s events, including ones that arrive before Send returns', async () => {
    const c = new ChatState()
    let resolve!: (v: { session_id: string }) => void
    send.mockImplementationOnce(() => new Promise((r) => (resolve = r)))
    const sending = c.send('list my files')
    // Events of the new session arrive before its id is known.
    c.apply([ev('agent:run-started', { text: 'list my files' }), ev('agent:token', { text: 'Let me ' })])
    resolve({ session_id: 's1' })
    await sending
    c.apply([
      ev('agent:token', { text: 'look.' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.list', arguments: { path: '.' } }),
      ev('agent:tool-result', { id: 'c1', name: 'fs.list', output: 'a.txt', error: '', duration_ms: 3 }),
      ev('memory:procedure-recalled', { procedures: [{ id: 'p1', chain: 'fs.list → fs.read', tools: [], trigger: '', uses: 0, demerits: 0 }] }),
      ev('agent:token', { text: 'Done.' }),
      ev('agent:response', { text: 'Done.' }),
      ev('agent:token', { text: 'other session' }, 's2'),
      ev('agent:run-ended', { status: 'responded' }),
    ])
    expect(c.sessionId).toBe('s1')
    expect(c.running).toBe(false)
    expect(c.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'recalled', 'assistant'])
    const first = c.items[1]
    expect(first.kind === 'assistant' && first.text).toBe('Let me look.')
    const tool = c.items[2]
    expect(tool.kind === 'tool' && tool.output).toBe('a.txt')
    const last = c.items[4]
    expect(last.kind === 'assistant' && last.text).toBe('Done.')
    // The run's measures name the procedure it followed (another session's
    // do not count).
    c.apply([ev('metrics:run-recorded', { followed: 'p1' }, 's2')])
    expect(c.items[3]).not.toHaveProperty('followed', 'p1')
    c.apply([ev('metrics:run-recorded', { followed: 'p1' })])
    expect(c.items[3]).toHaveProperty('followed', 'p1')
    // The learner declines a recalled procedure the run did not use: its
    // badge says so (another session's decline changes nothing).
    c.apply([ev('memory:procedure-declined', { procedure: { id: 'p9' }, request: 'x' }, 's2')])
    c.apply([ev('memory:procedure-declined', { procedure: { id: 'p1', chain: 'fs.list → fs.read' }, request: 'list my files' })])
    const rec = c.items[3]
    expect(rec.kind === 'recalled' && rec.declined).toEqual(['p1'])
  })

  it('shows a check sending the model back after its answer, and the answer it gives then as another', async () => {
    const c = new ChatState()
    await c.send('fix the date parsing')
    c.apply([
      ev('agent:run-started', { text: 'fix the date parsing' }),
      ev('agent:token', { text: 'Done.' }),
      ev('agent:response', { text: 'Done.' }),
      ev('hook:running', { event: 'pre-run-end', hook: 'hook a1 (make test)' }),
    ])
    expect(c.checking?.hook).toBe('hook a1 (make test)') // the window says what the run waits for
    c.apply([
      ev('agent:sent-back', { text: '[hook a1 (make test), run when you answered, says the request is not done]\nFAIL: TestParse', time: 1 }),
      ev('agent:token', { text: 'Fixed ' }),
      ev('agent:token', { text: 'it.' }),
      ev('agent:response', { text: 'Fixed it.' }),
    ])
    expect(c.checking).toBeNull()
    expect(c.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'sent-back', 'assistant'])
    const back = c.items[2]
    expect(back.kind === 'sent-back' && back.time).toBe(1)
    expect(back.kind === 'sent-back' && back.text).toContain('FAIL: TestParse')
    expect(c.items.map((i) => (i.kind === 'assistant' ? i.text : ''))).toEqual(['', 'Done.', '', 'Fixed it.'])
    expect(c.running).toBe(true) // the run goes on after the first answer
    c.apply([ev('agent:run-ended', { status: 'responded' })])
    expect(c.running).toBe(false)
  })

  it('names a hook the request waits for before its run, for its own token only, until it is done or the request is taken', async () => {
    stop.mockClear()
    let taken = (_: { session_id: string }) => {}
    let sentToken = ''
    send.mockImplementationOnce(
      (req?: unknown) =>
        new Promise((resolve) => {
          sentToken = String((req as { token?: string }).token ?? '')
          taken = resolve
        }),
    )
    const c = new ChatState()
    const sent = c.send('set up the project')
    await vi.waitFor(() => expect(sentToken).not.toBe(''))
    c.prepare({ token: 'another', event: 'session-start', hook: 'hook b1 (x)', done: false })
    expect(c.preparing).toBeNull() // another request's
    c.prepare({ token: sentToken, event: 'session-start', hook: 'hook a1 (./setup.sh)', done: false })
    expect(c.preparing).toMatchObject({ event: 'session-start', hook: 'hook a1 (./setup.sh)' })
    c.prepare({ token: sentToken, event: 'session-start', hook: 'hook a1 (./setup.sh)', done: true })
    expect(c.preparing).toBeNull()
    c.prepare({ token: sentToken, event: 'pre-request', hook: 'hook a2 (./check.sh)', done: false })
    expect(c.preparing?.event).toBe('pre-request')
    // Stop reaches the request through its token: it has no session yet.
    await c.stop()
    expect(stopSending).toHaveBeenCalledWith(sentToken)
    expect(stop).not.toHaveBeenCalled()
    taken({ session_id: 's1' })
    expect(await sent).toBe(true)
    expect(c.preparing).toBeNull() // the run started: its events say what it waits for
    await c.stop()
    expect(stop).toHaveBeenCalledWith('s1') // a started run, by its session
    c.prepare({ token: sentToken, event: 'pre-request', hook: 'hook a2 (./check.sh)', done: false })
    expect(c.preparing).toBeNull() // a late one changes nothing
  })

  it('says while Ollama loads the model, until the model answers', async () => {
    const c = new ChatState()
    await c.send('hi')
    c.apply([ev('agent:run-started', { text: 'hi' }), ev('agent:model-loading', { model: 'qwen3:4b', loaded: 4096, num_ctx: 16384 })])
    expect(c.loading).toMatchObject({ model: 'qwen3:4b', loaded: 4096, numCtx: 16384 })
    expect(c.items.map((i) => i.kind)).toEqual(['user']) // not an item of the conversation
    c.apply([ev('agent:model-loading', { model: 'qwen3:4b', num_ctx: 16384 }, 's2')])
    expect(c.loading?.loaded).toBe(4096) // another session's load is not this one's
    // What the run says while it prepares the call does not end the wait.
    c.apply([ev('agent:error', { kind: 'warning', message: '3 of 3 MCP tools were not offered' }), ev('context:compacted', { before: 9000, budget: 4000 })])
    expect(c.loading?.model).toBe('qwen3:4b')
    c.apply([ev('agent:token', { text: 'Hel' })])
    expect(c.loading).toBeNull()
  })

  it('shows how far a running call has come, and stops at its result', async () => {
    const c = new ChatState()
    await c.send('crawl')
    c.apply([
      ev('agent:run-started', { text: 'crawl' }),
      ev('agent:tool-call', { id: 'c1', name: 'mcp.web.crawl', arguments: {} }),
      ev('tool:progress', { id: 'c1', tool: 'mcp.web.crawl', progress: 2, total: 3, message: 'page 2' }),
      ev('tool:progress', { id: 'c9', tool: 'x', progress: 1, total: 2 }),
    ])
    const tool = c.items[1]
    expect(tool.kind === 'tool' && tool.progress).toBe('2 of 3 (67%): page 2')
    c.apply([ev('agent:tool-result', { id: 'c1', name: 'mcp.web.crawl', output: 'ok', error: '', duration_ms: 9 }), ev('tool:progress', { id: 'c1', progress: 3, total: 3 })])
    expect(tool.kind === 'tool' && tool.progress).toBe('2 of 3 (67%): page 2') // late: the card says done
    expect(progressText(0.5, 0, 'warming up')).toBe('0.5: warming up')
    expect(progressText(0, 0, '')).toBe('')
  })

  it('says a call waits for the answer to its question until it is answered', async () => {
    const c = new ChatState()
    await c.send('write it')
    c.apply([
      ev('agent:run-started', { text: 'write it' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.write', arguments: { path: 'a' } }),
      ev('approval:requested', { id: 'c1', tool: 'fs.write', asked: true }),
    ])
    const tool = c.items[1]
    expect(tool.kind === 'tool' && tool.asking).toBe(true)
    c.apply([ev('approval:decided', { id: 'c1', allow: true })])
    expect(tool.kind === 'tool' && tool.asking).toBe(false)
    c.apply([ev('agent:tool-call', { id: 'c2', name: 'fs.write', arguments: {} }), ev('approval:requested', { id: 'c2', asked: true })])
    c.apply([ev('agent:tool-result', { id: 'c2', name: 'fs.write', output: '', error: 'denied', denied: true, duration_ms: 0 })])
    const second = c.items[2]
    expect(second.kind === 'tool' && !second.asking && second.denied).toBe(true)
    // A call the mode or a rule decided is announced unasked: it never waits.
    c.apply([ev('agent:tool-call', { id: 'c3', name: 'fs.read', arguments: {} }), ev('approval:requested', { id: 'c3', tool: 'fs.read' })])
    const third = c.items[3]
    expect(third.kind === 'tool' && third.asking).toBe(false)
  })

  it('declines a recalled procedure for the request that recalled it, from its badge', async () => {
    const c = new ChatState()
    await c.send('zip the holiday photos')
    c.apply([
      ev('agent:run-started', { text: 'zip the holiday photos' }),
      ev('memory:procedure-recalled', { procedures: [{ id: 'p2', chain: 'fs.list → fs.zip', tools: [], trigger: '', uses: 0, demerits: 0 }] }),
      ev('agent:response', { text: 'Zipped.' }),
      ev('agent:run-ended', { status: 'responded' }),
    ])
    await c.decline('p2')
    expect(decline).toHaveBeenCalledWith('p2', 'zip the holiday photos', 's1')
    const rec = c.items.find((i) => i.kind === 'recalled')
    expect(rec?.kind === 'recalled' && rec.declined).toEqual(['p2'])
    // A failure is shown, not swallowed.
    decline.mockRejectedValueOnce(new Error('the request has no words to remember it by'))
    if (rec?.kind === 'recalled') rec.declined = []
    await c.decline('p2')
    expect(c.error).toContain('no words')
  })

  it('says when a procedure is learned, and when the model marks one wrong', async () => {
    const c = new ChatState()
    await c.send('zip the holiday photos')
    const p = { id: 'p3', chain: 'fs.list → fs.zip → fs.move', tools: ['fs.list', 'fs.zip', 'fs.move'], trigger: 'zip the holiday photos', uses: 0, demerits: 0 }
    c.apply([
      ev('agent:run-started', { text: 'zip the holiday photos' }),
      ev('memory:procedure-forgotten', { procedure: { ...p, id: 'p1', demerits: 1 }, reason: 'wrong folder', by_user: false, dropped: false }),
      ev('memory:procedure-forgotten', { procedure: { ...p, id: 'p2', demerits: 3 }, by_user: false, dropped: true }),
      // The user's own forget (the Procedures view) is not the conversation's.
      ev('memory:procedure-forgotten', { procedure: { ...p, id: 'p4' }, by_user: true, dropped: true }),
      ev('agent:response', { text: 'Zipped.' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('memory:procedure-learned', p),
      ev('memory:procedure-learned', { ...p, id: 'p5' }, 's2'),
    ])
    expect(c.items.map((i) => i.kind)).toEqual(['user', 'marked-wrong', 'marked-wrong', 'assistant', 'learned'])
    expect(c.items[1]).toMatchObject({ procedure: { id: 'p1' }, reason: 'wrong folder', dropped: false })
    expect(c.items[2]).toMatchObject({ procedure: { id: 'p2' }, reason: '', dropped: true })
    expect(c.items[4]).toMatchObject({ kind: 'learned', merged: false, procedure: { id: 'p3', chain: 'fs.list → fs.zip → fs.move' } })
  })

  it('says a run repeated a stored procedure only when its recall badge does not', async () => {
    const c = new ChatState()
    await c.send('zip the photos')
    const p = { id: 'p3', chain: 'fs.list → fs.zip → fs.move', tools: [], trigger: 'zip the holiday photos', uses: 2, demerits: 0 }
    c.apply([
      ev('agent:run-started', { text: 'zip the photos' }),
      ev('memory:procedure-recalled', { procedures: [p] }),
      ev('agent:response', { text: 'Zipped.' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('memory:procedure-updated', p),
    ])
    expect(c.items.map((i) => i.kind)).toEqual(['user', 'recalled', 'assistant'])
    // Not recalled (turned down), yet the same chain: the run joins it.
    await c.send('pack up the pictures')
    c.apply([
      ev('agent:run-started', { text: 'pack up the pictures' }),
      ev('agent:response', { text: 'Packed.' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('memory:procedure-updated', p),
    ])
    expect(c.items.map((i) => i.kind)).toEqual(['user', 'recalled', 'assistant', 'user', 'assistant', 'learned'])
    expect(c.items[5]).toMatchObject({ merged: true, procedure: { id: 'p3' } })
  })

  it('shows errors and stops', async () => {
    const c = new ChatState()
    await c.send('go')
    c.apply([ev('agent:error', { kind: 'error', message: 'Ollama is not running' })])
    await c.stop()
    expect(stop).toHaveBeenCalledWith('s1')
    c.apply([ev('agent:run-ended', { status: 'cancelled' })])
    expect(c.items.filter((i) => i.kind === 'notice').map((i) => i.kind === 'notice' && i.text)).toEqual(['Ollama is not running', 'Stopped.'])
    send.mockRejectedValueOnce(new Error('the request is empty'))
    const before = c.items.length
    expect(await c.send('again')).toBe(false)
    expect(c.error).toContain('the request is empty')
    expect(c.running).toBe(false)
    // The request was not taken: it is not in the conversation (the
    // composer gives it back).
    expect(c.items.length).toBe(before)
  })

  it('keeps whether a call told the model nothing new, or what it had lost to fit the context', () => {
    const c = new ChatState()
    c.load('s1', [
      ev('agent:run-started', { text: 'compare a and b' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.read', arguments: { path: 'a' } }),
      ev('agent:tool-result', { id: 'c1', name: 'fs.read', output: 'A', error: '', duration_ms: 1 }),
      ev('agent:tool-call', { id: 'c2', name: 'fs.read', arguments: { path: 'a' } }),
      ev('agent:tool-result', { id: 'c2', name: 'fs.read', output: 'A', error: '', duration_ms: 1, refetched: true }),
      ev('agent:tool-call', { id: 'c3', name: 'fs.read', arguments: { path: 'a' } }),
      ev('agent:tool-result', { id: 'c3', name: 'fs.read', output: 'A', error: '', duration_ms: 1, repeated: true }),
    ])
    const tools = c.items.filter((it) => it.kind === 'tool') as { repeated?: boolean; refetched?: boolean }[]
    expect(tools.map((t) => [!!t.repeated, !!t.refetched])).toEqual([
      [false, false],
      [false, true],
      [true, false],
    ])
  })

  it('marks answers done: a run’s own at its end, every one of a loaded session', () => {
    const c = new ChatState()
    // The first run's end was never recorded (the app was killed mid-run).
    c.load('s1', [
      ev('agent:run-started', { text: 'first' }),
      ev('agent:token', { text: 'cut off' }),
      ev('agent:run-started', { text: 'second' }),
      ev('agent:tool-call', { id: 'c1', name: 'fs.list', arguments: {} }),
      ev('agent:tool-result', { id: 'c1', name: 'fs.list', output: 'a.txt', error: '', duration_ms: 1 }),
      ev('agent:token', { text: 'Done.' }),
      ev('agent:run-ended', { status: 'responded' }),
    ])
    const answers = () => c.items.filter((it) => it.kind === 'assistant') as { text: string; done: boolean }[]
    expect(answers().map((a) => [a.text, a.done])).toEqual([
      ['cut off', true],
      ['Done.', true],
    ])
    // A live run's answer streams, then is done when the run ends.
    c.items.push({ kind: 'user', text: 'third' })
    c.apply([ev('agent:token', { text: 'Working' })])
    expect(answers()[2]).toEqual({ kind: 'assistant', text: 'Working', done: false })
    c.apply([ev('agent:token', { text: ' on it.' }), ev('agent:run-ended', { status: 'responded' })])
    expect(answers()[2]).toEqual({ kind: 'assistant', text: 'Working on it.', done: true })
  })

  it('shows a terminal going on with the open session, and nothing of other sessions or of its approvals', () => {
    const c = new ChatState()
    c.load('s1', [ev('agent:run-started', { text: 'first' }), ev('agent:token', { text: 'One.' }), ev('agent:run-ended', { status: 'responded' })])
    c.applyForeign([
      ev('agent:run-started', { text: 'from the terminal' }),
      ev('agent:tool-call', { id: 'c1', name: 'shell.run', arguments: { command: 'ls' } }),
      ev('approval:requested', { id: 'c1', tool: 'shell.run', arguments: { command: 'ls' } }),
      ev('agent:run-started', { text: 'another session' }, 's2'),
      ev('agent:tool-result', { id: 'c1', name: 'shell.run', output: 'a.txt', error: '', duration_ms: 1 }),
      ev('agent:token', { text: 'Listed.' }),
    ])
    // While the terminal's request runs, the chat says so.
    expect(c.elsewhere).toBe(true)
    c.applyForeign([ev('agent:run-ended', { status: 'responded' })])
    expect(c.elsewhere).toBe(false)
    expect(c.items.map((it) => it.kind)).toEqual(['user', 'assistant', 'user', 'tool', 'assistant'])
    expect(c.items[2]).toMatchObject({ kind: 'user', text: 'from the terminal' })
    expect(c.items[4]).toMatchObject({ kind: 'assistant', text: 'Listed.', done: true })
    expect(c.running).toBe(false)
    // Events it already has (the same seqs again) change nothing.
    const before = c.items.length
    c.applyForeign([{ seq: 1, session: 's1', type: 'agent:token', time: '', data: { text: 'again' } }])
    expect(c.items.length).toBe(before)
  })

  it('clears the terminal line when the window ends a killed terminal\'s run', () => {
    const c = new ChatState()
    c.load('s1', [ev('agent:run-started', { text: 'first' }), ev('agent:run-ended', { status: 'responded' })])
    c.applyForeign([ev('agent:run-started', { text: 'from the terminal' }), ev('agent:tool-call', { id: 'c1', name: 'shell.run', arguments: { command: 'sleep 60' } })])
    expect(c.elsewhere).toBe(true)
    // The terminal was killed: the window finds its lock gone and ends the
    // run itself; that end comes on the window's own bus.
    c.apply([
      ev('agent:tool-result', { id: 'c1', name: 'shell.run', output: '', error: 'interrupted', duration_ms: 0 }),
      ev('agent:run-ended', { status: 'interrupted' }),
    ])
    expect(c.elsewhere).toBe(false)
    expect(c.items.at(-1)).toMatchObject({ kind: 'notice', level: 'warning' })
  })

  it('shows a run Shrimp was killed in as interrupted, once, when opening the session ends it', () => {
    const c = new ChatState()
    const loaded = [
      ev('agent:run-started', { text: 'build it' }),
      ev('agent:tool-call', { id: 'c1', name: 'shell.run', arguments: { command: 'make' } }),
      ev('agent:tool-call', { id: 'c2', name: 'shell.run', arguments: { command: 'make test' } }),
      ev('agent:tool-result', { id: 'c1', name: 'shell.run', output: '', error: 'interrupted: Shrimp was closed or stopped while this ran', duration_ms: 0 }),
      ev('agent:run-ended', { status: 'interrupted' }),
    ]
    c.load('s1', loaded)
    // Opening the session published the same events on the bus.
    c.apply(loaded.slice(3))
    const tools = c.items.filter((it) => it.kind === 'tool') as { id: string; done: boolean; error: string }[]
    expect(tools.map((t) => [t.id, t.done, t.error.split(':')[0]])).toEqual([
      ['c1', true, 'interrupted'],
      ['c2', true, 'no result was recorded'],
    ])
    const notices = c.items.filter((it) => it.kind === 'notice') as { level: string; text: string }[]
    expect(notices).toHaveLength(1)
    expect(notices[0].level).toBe('warning')
    expect(notices[0].text).toMatch(/^Interrupted: .*may have done part of its work/)
    // The next run's events still come through.
    c.apply([ev('agent:run-started', { text: 'again' }), ev('agent:token', { text: 'Checking.' })])
    expect(c.items.at(-1)).toEqual({ kind: 'assistant', text: 'Checking.', done: false })
  })
})

describe('ChatState of a long session', () => {
  it('shows the newest items from a request on, and earlier ones a page at a time', () => {
    const c = new ChatState()
    const events: BusEvent[] = []
    let tools = 0
    for (let r = 0; r < 1000; r++) {
      events.push(ev('agent:run-started', { text: `request ${r}` }))
      for (let k = 0; k < r % 3; k++) {
        tools++
        events.push(ev('agent:tool-call', { id: `c${r}.${k}`, name: 'fs.read', arguments: {} }))
        events.push(ev('agent:tool-result', { id: `c${r}.${k}`, name: 'fs.read', output: 'x', error: '', duration_ms: 1 }))
      }
      events.push(ev('agent:token', { text: `answer ${r}` }), ev('agent:run-ended', { status: 'responded' }))
    }
    c.load('s1', events)
    expect(c.items.length).toBe(2000 + tools) // the requests, their tool cards and answers
    const starts = () => c.items[c.from].kind
    expect(starts()).toBe('user')
    expect(c.items.length - c.from).toBeGreaterThanOrEqual(CHAT_PAGE)
    expect(c.items.length - c.from).toBeLessThan(CHAT_PAGE + 5)
    let before = c.from
    c.showEarlier()
    expect(starts()).toBe('user')
    expect(before - c.from).toBeGreaterThanOrEqual(CHAT_PAGE)
    while (c.from > 0) {
      before = c.from
      c.showEarlier()
      expect(c.from).toBeLessThan(before)
    }
    // A short session and a new chat show everything.
    c.load('s2', events.slice(0, 40))
    expect(c.from).toBe(0)
    c.load('s1', events)
    c.reset()
    expect(c.from).toBe(0)
  })
})

describe('ChatState: retry and edit', () => {
  // A session of two requests, the second answered wrongly.
  function twoRequests(): ChatState {
    const c = new ChatState()
    c.load('s1', [
      ev('agent:run-started', { text: 'say hello' }),
      ev('agent:response', { text: 'hello' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('agent:run-started', { text: 'summarise notes.txt', images: [{ name: 'a.png', sha256: 'ab12', bytes: 6 }] }),
      ev('agent:response', { text: 'I wrote it (not really)' }),
      ev('agent:run-ended', { status: 'responded' }),
    ])
    return c
  }
  const runOf = (c: ChatState, text: string) => {
    const it = c.items.find((i) => i.kind === 'user' && i.text === text)
    return it?.kind === 'user' ? (it.run ?? 0) : 0
  }

  it('retries a request as it was asked: no text sent, its attempt folded, the retry shown with its images', async () => {
    const c = twoRequests()
    const run = runOf(c, 'summarise notes.txt')
    expect(c.later(runOf(c, 'say hello'))).toBe(1)
    expect(c.later(run)).toBe(0)
    send.mockClear()
    expect(await c.retry(run, true)).toBe(true)
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1', text: '', images: [], replace: run, undo_replaced: true }))
    // The attempt folds at once; the retry is a new request at the end.
    expect(c.items.map((i) => [i.kind, i.replaced ?? 0])).toEqual([
      ['user', 0],
      ['assistant', 0],
      ['user', run],
      ['assistant', run],
      ['user', 0],
    ])
    const retry = c.items[4]
    expect(retry.kind === 'user' && retry.text).toBe('summarise notes.txt')
    expect(retry.kind === 'user' && retry.images?.[0].sha256).toBe('ab12')
    // The backend's events: the undo's notice stays in sight, the
    // replacement changes nothing more, the retry's run is the new item's.
    c.apply([
      ev('files:restored', { files: [{ path: 'notes.txt', action: 'restore' }], untracked: [], elsewhere: [] }),
      ev('session:request-replaced', { run, messages: 2 }),
      ev('agent:run-started', { text: 'summarise notes.txt' }),
    ])
    expect(c.items.map((i) => [i.kind, i.replaced ?? 0])).toEqual([
      ['user', 0],
      ['assistant', 0],
      ['user', run],
      ['assistant', run],
      ['user', 0],
      ['restored', 0],
    ])
    expect(c.items[4]).toHaveProperty('run', seq)
  })

  it("says a retry no longer gets the procedure that steered its attempt", async () => {
    const c = twoRequests()
    const run = runOf(c, 'summarise notes.txt')
    c.apply([ev('memory:procedure-recalled', { procedures: [{ id: 'p1', chain: 'fs.read → fs.write' }] })])
    await c.retry(run, false)
    c.apply([ev('memory:procedure-declined', { procedure: { id: 'p1', chain: 'fs.read → fs.write' }, request: 'summarise notes.txt', by_user: true })])
    const last = c.items[c.items.length - 1]
    expect(last.kind === 'notice' && last.text).toContain('The procedure fs.read → fs.write is no longer offered for this request')
    // The user's own "not for this request" on a badge in sight marks the badge only.
    const d = new ChatState()
    d.load('s1', [ev('agent:run-started', { text: 'x' }), ev('memory:procedure-recalled', { procedures: [{ id: 'p2', chain: 'a → b' }] })])
    d.apply([ev('memory:procedure-declined', { procedure: { id: 'p2', chain: 'a → b' }, request: 'x', by_user: true })])
    expect(d.items.map((i) => i.kind)).toEqual(['user', 'recalled'])
  })

  it('unfolds the attempt again when the retry is refused', async () => {
    const c = twoRequests()
    const run = runOf(c, 'summarise notes.txt')
    send.mockImplementationOnce(async () => {
      throw new Error('request 4 held a secret, which Shrimp did not keep')
    })
    expect(await c.retry(run, false)).toBe(false)
    expect(c.items.filter((i) => i.replaced)).toEqual([])
    expect(c.items).toHaveLength(4)
    expect(c.error).toContain('held a secret')
  })

  it('folds what a retry replaced when a stored session is opened, and what a terminal replaces as it happens', () => {
    const c = new ChatState()
    const events = [
      ev('agent:run-started', { text: 'first' }),
      ev('agent:response', { text: 'one' }),
      ev('agent:run-ended', { status: 'responded' }),
      ev('agent:run-started', { text: 'second' }),
      ev('agent:response', { text: 'two' }),
      ev('agent:run-ended', { status: 'responded' }),
    ]
    const first = events[0].seq
    c.load('s1', [...events, ev('files:restored', { files: [], untracked: [], elsewhere: [] }), ev('session:request-replaced', { run: first, messages: 4 }), ev('agent:run-started', { text: 'first, better' })])
    expect(c.items.map((i) => [i.kind, i.replaced ?? 0])).toEqual([
      ['user', first],
      ['assistant', first],
      ['user', first],
      ['assistant', first],
      ['restored', 0],
      ['user', 0],
    ])
    // A terminal's retry in the open session.
    c.applyForeign([ev('agent:response', { text: 'better' }), ev('agent:run-ended', { status: 'responded' }), ev('session:request-replaced', { run: c.items[5].kind === 'user' ? c.items[5].run : 0, messages: 2 })])
    expect(c.items.every((i) => i.kind === 'restored' || i.replaced)).toBe(true)
  })

  it('edits a request in the message box, sends it in its place, and gives the box back when the edit is cancelled', async () => {
    let c = twoRequests()
    const run = runOf(c, 'summarise notes.txt')
    c.draft = 'half a thought'
    await c.edit(run)
    expect(c.editing).toEqual({ run, later: 0 })
    expect(c.draft).toBe('summarise notes.txt')
    // Its stored image comes back as an attachment, read by its key.
    expect(c.draftImages).toEqual([{ name: 'a.png', type: 'image/png', url: 'data:image/png;base64,c3RvcmVk', data: 'c3RvcmVk', bytes: 6 }])
    c.cancelEdit()
    expect(c.editing).toBeNull()
    expect(c.draft).toBe('half a thought')
    expect(c.draftImages).toEqual([])
    // Another session opened mid-edit: the edit is left, the box given back.
    await c.edit(run)
    const events = [ev('agent:run-started', { text: 'elsewhere' })]
    const other = new ChatState()
    other.draft = 'mine'
    other.load('s2', events)
    c.load('s3', events)
    expect(c.editing).toBeNull()
    expect(c.draft).toBe('half a thought')
    expect(other.draft).toBe('mine')
    c = twoRequests() // the session of the test goes on

    await c.edit(runOf(c, 'say hello'))
    expect(c.editing).toEqual({ run: runOf(c, 'say hello'), later: 1 })
    send.mockClear()
    expect(await c.send('say hello in French', [])).toBe(true)
    expect(send).toHaveBeenCalledWith(expect.objectContaining({ text: 'say hello in French', replace: runOf(c, 'say hello'), undo_replaced: false }))
    expect(c.editing).toBeNull()
    expect(c.items.filter((i) => i.replaced).length).toBe(4)
  })
})
