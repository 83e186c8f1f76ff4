import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { OLLAMA_PORT } from '../playwright.config'
import { startOllama, stopOllama } from './fake-ollama'

// Measurements, not assertions on time: the numbers go to
// test-results/perf.json and docs/BENCHMARKS.md.
const results: Record<string, number> = {}

test.afterAll(() => {
  mkdirSync('test-results', { recursive: true })
  writeFileSync('test-results/perf.json', JSON.stringify(results, null, 2))
  console.log('perf:', JSON.stringify(results))
})

test('perf: 10,000 timeline events through the real event path', async ({ page }) => {
  await page.goto('/')
  await page.getByRole('button', { name: 'Timeline', exact: true }).click()
  const ms = await page.evaluate(async () => {
    const w = window as unknown as { runtime: { EventsEmit: (name: string, ...data: unknown[]) => void } }
    const start = performance.now()
    for (let b = 0; b < 20; b++) {
      const batch = []
      for (let i = 0; i < 500; i++) {
        const seq = b * 500 + i + 1
        batch.push({ seq, session: 'perf', type: 'agent:token', time: new Date().toISOString(), data: { text: `token ${seq}` } })
      }
      w.runtime.EventsEmit('shrimp:events', batch)
    }
    await new Promise<void>((resolve) => {
      const check = () => {
        const el = document.querySelector('[data-testid="timeline-count"]')
        if (Number(el?.textContent?.split(' ')[0]) >= 10000) resolve()
        else requestAnimationFrame(check)
      }
      check()
    })
    return performance.now() - start
  })
  await expect(page.getByTestId('timeline-count')).toContainText('10000')
  results.timeline10kRenderMs = Math.round(ms)
  // Scrolling to the top and back stays responsive.
  const scrollMs = await page.evaluate(async () => {
    const el = document.querySelector('.scroller') as HTMLElement
    const start = performance.now()
    el.scrollTop = 0
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    el.scrollTop = el.scrollHeight
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    return performance.now() - start
  })
  results.timeline10kScrollTwoFramesMs = Math.round(scrollMs)
  expect(await page.getByTestId('timeline-row').count()).toBeLessThan(200) // virtualized
})

test('perf: frame time while an answer streams', async ({ page }) => {
  const server = await startOllama(OLLAMA_PORT, ['shrimp-test-chain:latest'])
  try {
    await page.goto('/')
    await expect(page.getByLabel('Model')).toHaveValue('shrimp-test-chain:latest', { timeout: 15_000 })
    await page.getByLabel('Approval mode').selectOption('all')
    await page.getByLabel('Workspace folder').fill(mkdtempSync(join(tmpdir(), 'shrimp-perf-')))
    await page.evaluate(() => {
      const w = window as unknown as { frames_: number[] }
      w.frames_ = []
      let last = performance.now()
      const tick = (t: number) => {
        w.frames_.push(t - last)
        last = t
        requestAnimationFrame(tick)
      }
      requestAnimationFrame(tick)
    })
    await page.getByLabel('Message').fill('stream long please')
    await page.getByLabel('Message').press('Enter')
    await expect(page.getByTestId('assistant').last()).toContainText('word599', { timeout: 30_000 })
    const frames = await page.evaluate(() => (window as unknown as { frames_: number[] }).frames_.slice(1))
    frames.sort((a, b) => a - b)
    results.streamFrames = frames.length
    results.streamFrameP50Ms = Math.round(frames[Math.floor(frames.length * 0.5)] * 10) / 10
    results.streamFrameP95Ms = Math.round(frames[Math.floor(frames.length * 0.95)] * 10) / 10
    results.streamFrameMaxMs = Math.round(frames[frames.length - 1] * 10) / 10
  } finally {
    await stopOllama(server)
  }
})
