import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

import Composer from './Composer.svelte'

describe('Composer', () => {
  it('gives a request that was not taken back to the box', async () => {
    const onsend = vi.fn(async () => false)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'summarize my notes' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    expect(onsend).toHaveBeenCalledWith('summarize my notes')
    await vi.waitFor(() => expect(box.value).toBe('summarize my notes'))
  })

  it('empties the box once the request is taken', async () => {
    const onsend = vi.fn(async () => true)
    render(Composer, { running: false, disabled: false, onsend, onstop: () => {} })
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement
    await fireEvent.input(box, { target: { value: 'list my files' } })
    await fireEvent.keyDown(box, { key: 'Enter' })
    await vi.waitFor(() => expect(onsend).toHaveBeenCalled())
    await Promise.resolve()
    expect(box.value).toBe('')
  })
})
