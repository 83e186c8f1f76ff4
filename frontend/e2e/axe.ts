import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'

// axe-core's own script, evaluated in the page (Playwright's evaluate is
// not subject to the page's CSP, which refuses inline scripts).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

type Violation = { id: string; impact: string; help: string; nodes: { target: string[]; failureSummary: string }[] }

// audit runs axe-core's WCAG 2.1 A and AA rules on what the page shows and
// returns the serious and critical violations, one line each.
export async function audit(page: Page, where: string): Promise<string[]> {
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(async () => {
    // @ts-expect-error axe is the global the evaluated script defines
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
    return r.violations
  })) as Violation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${where}: ${v.id} (${v.impact}) ${v.help}: ${n.target.join(' ')} — ${n.failureSummary.replace(/\s+/g, ' ')}`))
}
