import { describe, expect, it } from 'vitest'
import { relativeScript } from './hookscript'

describe('relativeScript', () => {
  it.each([
    [{ command: 'scripts/check.sh' }, 'scripts/check.sh'],
    [{ command: './lint' }, './lint'],
    [{ command: 'sh', args: ['scripts/guard.sh'] }, 'scripts/guard.sh'],
    [{ command: 'node', args: ['--flag', './hook.js'] }, './hook.js'],
    [{ command: '/bin/sh', args: ['../shared/deny.sh'] }, '../shared/deny.sh'],
    [{ command: '/opt/guard/deny', args: [] }, ''],
    [{ command: 'sh', args: ['~/bin/deny.sh'] }, ''],
    [{ command: 'notify-send', args: ['Shrimp', 'a/b done'] }, ''],
    [{ command: 'curl', args: ['https://x.example/hook'] }, ''],
    [{ command: 'sh', args: ['-c', 'scripts/x.sh && echo ok'] }, ''],
  ])('%j → %s', (h, want) => {
    expect(relativeScript(h)).toBe(want)
  })
})
