import { createServer, type Server } from 'node:http'
import { expect, test } from '@playwright/test'
import { OLLAMA_PORT } from '../playwright.config'

// A minimal stand-in for an Ollama server: just the two endpoints the status
// bar asks. The wire-faithful fake for chat lives in Go (internal/ollamatest).
function startOllama(models: string[]): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8')
    if (req.url === '/api/version') {
      res.end(JSON.stringify({ version: '0.24.0' }))
    } else if (req.url === '/api/tags') {
      res.end(
        JSON.stringify({
          models: models.map((name) => ({
            name,
            model: name,
            modified_at: '2026-11-30T00:00:00Z',
            size: 123456,
            digest: 'sha256:0',
            details: { format: 'gguf', family: 'llama', parameter_size: '1M', quantization_level: 'F16' },
          })),
        }),
      )
    } else {
      res.statusCode = 404
      res.end('{"error":"not found"}')
    }
  })
  return new Promise((resolve) => server.listen(OLLAMA_PORT, '127.0.0.1', () => resolve(server)))
}

test('shell: sidebar, Ollama call to action, then a pushed status change', async ({ page }) => {
  await page.goto('/')
  for (const name of ['Chat', 'Timeline', 'Procedures', 'Sessions', 'Settings']) {
    await expect(page.getByRole('button', { name })).toBeVisible()
  }
  // Nothing listens on the port yet: the status bar says what to do.
  await expect(page.getByTestId('ollama-status')).toHaveText(
    `Ollama is not running at http://127.0.0.1:${OLLAMA_PORT} — start it with ollama serve`,
  )

  // Ollama comes up: the Go side notices and pushes the change as an event.
  const server = await startOllama(['shrimp-test-chain:latest', 'shrimp-test-text:latest'])
  try {
    await expect(page.getByTestId('ollama-models')).toHaveText('2 models: shrimp-test-chain:latest, shrimp-test-text:latest', {
      timeout: 15_000,
    })
    await expect(page.getByTestId('ollama-status')).toHaveText(`Ollama 0.24.0 at http://127.0.0.1:${OLLAMA_PORT}`)
    await page.getByRole('button', { name: 'Timeline' }).click()
    await expect(page.getByText('ollama:status').first()).toBeVisible()
  } finally {
    await new Promise((r) => server.close(r))
  }
})

test('settings: a real bound call returns the data dir and host', async ({ page }) => {
  await page.goto('/')
  await page.getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByTestId('settings-host')).toHaveText(`http://127.0.0.1:${OLLAMA_PORT}`)
  await expect(page.getByTestId('settings-datadir')).toContainText('build/e2e-data')
})
