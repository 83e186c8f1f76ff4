import { describe, expect, it } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'
import LongText, { LONG } from './LongText.svelte'

describe('LongText', () => {
  it('shows a short text whole', () => {
    const { container } = render(LongText, { text: 'convert the report to pdf' })
    expect(container.textContent).toBe('convert the report to pdf')
    expect(screen.queryByTestId('show-all')).toBeNull()
  })

  it('shows a long one by its ends until asked for all of it', async () => {
    const text = 'summarise this log:\n' + 'a log line\n'.repeat(300_000) + 'thanks!'
    const { container } = render(LongText, { text })
    const shown = container.textContent ?? ''
    expect(shown.length).toBeLessThan(LONG)
    expect(shown.startsWith('summarise this log:')).toBe(true)
    expect(shown.endsWith('thanks!')).toBe(true)
    expect(screen.getByTestId('show-all').textContent).toContain((text.length - 2000).toLocaleString() + ' more characters')
    await fireEvent.click(screen.getByTestId('show-all'))
    expect(container.textContent).toBe(text)
  })
})
