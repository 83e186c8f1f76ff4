import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { OLLAMA_PORT } from '../playwright.config'
import { audit } from './axe'
import { startOllama, stopOllama } from './fake-ollama'

const VIEWS = ['Chat', 'Timeline', 'Procedures', 'Sessions', 'Memory', 'Models', 'Extensions', 'Usage', 'Settings']

// Every view, in the light and the dark theme, with a conversation, an
// approval question and a learned procedure to show, then an MCP server's
// prompt list, its question during a call, and the undo of a request's
// file changes: no serious or
// critical WCAG 2.1 AA violation (contrast, names of controls, labels,
// roles) that axe-core can find.
for (const scheme of ['light', 'dark'] as const) {
  test(`accessibility: every view in the ${scheme} theme`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme })
    const server = await startOllama(OLLAMA_PORT, ['shrimp-test-chain:latest'])
    const ws = mkdtempSync(join(tmpdir(), 'shrimp-a11y-'))
    writeFileSync(join(ws, 'notes.txt'), 'remember the shrimp\n')
    mkdirSync(join(ws, '.claude', 'commands'), { recursive: true })
    writeFileSync(join(ws, '.claude', 'commands', 'standup.md'), '---\ndescription: Draft my standup\n---\nDraft my standup from the notes.\n')
    const found: string[] = []
    try {
      await page.goto('/')
      await expect(page.getByTestId('ollama-models')).toHaveText('1 model: shrimp-test-chain:latest', { timeout: 60_000 })
      found.push(...(await audit(page, 'chat, empty')))
      await page.getByLabel('Workspace folder').fill(ws)
      await page.getByLabel('Message').fill('find everything about shrimp in this folder')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
      found.push(...(await audit(page, 'approval dialog')))
      for (let i = 0; i < 3; i++) {
        await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
        await page.getByRole('button', { name: 'Allow once' }).click()
        await expect(page.getByTestId('tool-card').nth(i)).toContainText('done', { timeout: 60_000 })
      }
      await expect(page.getByTestId('assistant').last()).toHaveText('Here is what I found.', { timeout: 60_000 })
      for (const view of VIEWS) {
        await page.getByRole('button', { name: view, exact: true }).click()
        await expect(page.locator('main h1').first()).toHaveText(view)
        found.push(...(await audit(page, view)))
      }
      // An MCP server's prompt list in the message box, and its question
      // during a call (the npm everything server; added unless the
      // extensions test left it).
      await page.getByRole('button', { name: 'Extensions', exact: true }).click()
      await expect(page.getByTestId('extensions')).toHaveAttribute('data-loaded', 'true', { timeout: 60_000 })
      const everything = page.getByTestId('mcp-server').filter({ hasText: 'everything' })
      if ((await everything.count()) === 0) {
        expect(process.env.MCP_EVERYTHING, 'MCP_EVERYTHING: run through `make test-e2e`').toBeTruthy()
        await page.getByRole('button', { name: 'Add server' }).click()
        await page.getByLabel('Server name').fill('everything')
        await page.getByLabel('Server command').fill('node')
        await page.getByLabel('Server arguments').fill(`${process.env.MCP_EVERYTHING}\nstdio`)
        await page.getByRole('button', { name: 'Add', exact: true }).click()
      }
      await expect(everything).toHaveAttribute('data-state', 'running', { timeout: 90_000 })
      await page.getByRole('button', { name: 'Chat', exact: true }).click()
      await page.getByLabel('Message').fill('/')
      await expect(page.getByRole('button', { name: /\/args-prompt/ })).toBeVisible({ timeout: 60_000 })
      await expect(page.getByRole('button', { name: /\/standup/ })).toContainText('this folder')
      found.push(...(await audit(page, 'prompt list')))
      // A saved command of the folder (Claude Code's .claude/commands) fills the box, unsent.
      await page.getByLabel('Message').fill('/stand')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByLabel('Message')).toHaveValue('Draft my standup from the notes.', { timeout: 60_000 })
      await page.getByLabel('Message').fill('@arch')
      await expect(page.getByRole('button', { name: /@architecture\.md/ })).toBeVisible({ timeout: 60_000 })
      found.push(...(await audit(page, 'resource list')))
      await page.getByLabel('Message').fill('call: mcp.everything.trigger-elicitation-request {}')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
      await page.getByRole('button', { name: 'Allow once' }).click()
      const question = page.getByRole('dialog', { name: /asks you/ })
      await expect(question.getByTestId('question-message')).toBeVisible({ timeout: 60_000 })
      found.push(...(await audit(page, 'question dialog')))
      await question.getByRole('button', { name: 'Dismiss' }).click()
      await expect(question).toBeHidden({ timeout: 60_000 })
      // The run goes on after the question: a request sent before it ends
      // is not taken (Enter does nothing while Stop shows).
      await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden({ timeout: 60_000 })
      // A page the server asks the user to open: shown whole, declined
      // here (nothing opens).
      await page.getByLabel('Message').fill('call: mcp.everything.trigger-url-elicitation {"url": "https://bank.example@evil.example/pay"}')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
      await page.getByRole('button', { name: 'Allow once' }).click()
      await expect(question.getByTestId('question-url')).toHaveText('https://bank.example@evil.example/pay', { timeout: 60_000 })
      await expect(question.getByTestId('question-url-warning')).toContainText('evil.example')
      found.push(...(await audit(page, 'page question')))
      await question.getByRole('button', { name: 'Decline' }).click()
      await expect(question).toBeHidden({ timeout: 60_000 })
      await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden({ timeout: 60_000 })
      // A request that wrote a file, and the dialog that undoes it, its
      // diff open.
      await page.getByLabel('Message').fill('call: fs.write {"path":"notes.txt","content":"rewritten"}')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
      await page.getByRole('button', { name: 'Allow once' }).click()
      await page.getByTestId('undo-files').last().click({ timeout: 60_000 })
      await page.getByText('show the changes').click()
      await expect(page.getByTestId('undo-diff')).toContainText('+remember the shrimp', { timeout: 60_000 })
      found.push(...(await audit(page, 'undo dialog')))
      await page.getByRole('button', { name: 'Cancel' }).click()
      // A check you set up (a pre-run-end hook) sends the model back once
      // after its answer: the note between the two answers. Removed after.
      await page.getByRole('button', { name: 'Extensions', exact: true }).click()
      await page.getByLabel('Hook event').fill('pre-run-end')
      await page.getByLabel('Hook command').fill('/bin/sh')
      await page.getByLabel('Hook arguments').fill(`-c\ngrep -q '"sent_back":0' && { echo 'FAIL: TestParse: want an error for 2026-13-01' >&2; exit 2; }; exit 0`)
      await page.getByRole('button', { name: 'Add hook' }).click()
      const check = page.getByTestId('hook-row').filter({ hasText: 'pre-run-end' })
      await expect(check).toHaveCount(1, { timeout: 60_000 })
      // Tried from its row: the answer "Done." is sent back.
      await check.getByRole('button', { name: 'Try' }).click()
      await expect(check.getByTestId('hook-trial')).toContainText('sends the model back to work', { timeout: 60_000 })
      found.push(...(await audit(page, 'hook tried')))
      await page.getByRole('button', { name: 'Chat', exact: true }).click()
      await page.getByLabel('Message').fill('call: fs.read {"path":"notes.txt"}')
      await page.getByLabel('Message').press('Enter')
      await expect(page.getByRole('heading', { name: /Allow/ })).toBeVisible({ timeout: 60_000 })
      await page.getByRole('button', { name: 'Allow once' }).click()
      await expect(page.getByTestId('sent-back')).toContainText('FAIL: TestParse: want an error', { timeout: 60_000 })
      await expect(page.getByTestId('assistant').last()).toHaveText('Fixed: the tests pass now.', { timeout: 60_000 })
      await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden({ timeout: 60_000 })
      found.push(...(await audit(page, 'sent back by a check')))
      await page.getByRole('button', { name: 'Extensions', exact: true }).click()
      await check.getByRole('button', { name: 'Remove' }).click()
      await expect(check).toHaveCount(0, { timeout: 60_000 })
    } finally {
      await stopOllama(server)
    }
    expect(found, found.join('\n')).toEqual([])
  })
}
