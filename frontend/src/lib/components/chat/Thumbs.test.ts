import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/svelte'

const image = vi.fn(async (sha: string) => {
  if (sha === 'gone') throw new Error('image gone: not found')
  return 'data:image/png;base64,cG5nIQ=='
})
vi.mock('../../../../wailsjs/go/desktop/Sessions', () => ({ Image: (sha: string) => image(sha) }))

import Thumbs from './Thumbs.svelte'

describe('Thumbs', () => {
  it('shows a stored image by its key, once asked, and names one no session holds any more', async () => {
    render(Thumbs, {
      images: [
        { name: 'a.png', sha256: 'k1', width: 8, height: 6, bytes: 90 },
        { name: 'again.png', sha256: 'k1' },
        { name: 'b.png', sha256: 'gone' },
      ],
    })
    await vi.waitFor(() => expect((screen.getByAltText('a.png') as HTMLImageElement).src).toBe('data:image/png;base64,cG5nIQ=='))
    expect(screen.getByAltText('again.png')).toBeTruthy()
    await vi.waitFor(() => expect(screen.getByText('image no longer kept')).toBeTruthy())
    expect(image.mock.calls.map((c) => c[0]).sort()).toEqual(['gone', 'k1'])
  })

  it('opens an image whole and closes it with Escape', async () => {
    render(Thumbs, { images: [{ name: 'shot.png', url: 'data:image/png;base64,eA==', bytes: 2048, width: 64, height: 48 }] })
    await fireEvent.click(screen.getByTitle('shot.png (64×48, 2 KB)'))
    expect(screen.getByRole('dialog', { name: 'shot.png' })).toBeTruthy()
    await fireEvent.keyDown(window, { key: 'Escape' })
    expect(screen.queryByRole('dialog')).toBeNull()
  })
})
