import { describe, expect, it } from 'vitest'
import { embedBusy, embedStatusText } from './embed'
import type { EmbedStatus } from './types'

const base: EmbedStatus = { model: 'nomic-embed-text', wordings: 40, embedded: 40, in_use: true, needed: 20, pending: 0, failed: 0, retry: '', error: '' }

describe('embedStatusText', () => {
  const now = new Date('2026-12-01T09:30:00Z')
  it.each([
    ['no model', { ...base, model: '' }, '', false],
    ['in use', base, 'In use: recall compares meanings with nomic-embed-text (40 of 40 stored requests embedded).', false],
    ['few procedures', { ...base, wordings: 3, embedded: 3, in_use: false }, '3 of 3 stored requests have its vectors; recall uses nomic-embed-text once 20 have them', false],
    ['at work', { ...base, embedded: 12, in_use: false, pending: 28 }, 'Embedding in the background: 12 of 40', true],
    [
      'failing',
      { ...base, embedded: 12, in_use: false, failed: 28, error: 'connection refused', retry: '2026-12-01T09:30:15Z' },
      '12 of 40 stored requests have its vectors; the last try failed: connection refused. Tried again in 15 s.',
      true,
    ],
  ])('%s', (_name, status, text, busy) => {
    const got = embedStatusText(status as EmbedStatus, now)
    if (text === '') expect(got).toBe('')
    else expect(got).toContain(text)
    expect(embedBusy(status as EmbedStatus)).toBe(busy)
  })
})
