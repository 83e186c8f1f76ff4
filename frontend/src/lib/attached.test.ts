import { describe, expect, it } from 'vitest'
import { MAX_IMAGES, describeImage, readImages } from './attached'

const png = (name: string, bytes = 16) => new File([new Uint8Array(bytes)], name, { type: 'image/png' })

describe('readImages', () => {
  it('reads images as base64 with a data URL for the thumbnail', async () => {
    const { added, errors } = await readImages([new File(['hi'], 'a.png', { type: 'image/png' })], 0)
    expect(errors).toEqual([])
    expect(added).toHaveLength(1)
    expect(added[0].data).toBe('aGk=')
    expect(added[0].url).toBe('data:image/png;base64,aGk=')
    expect(added[0].name).toBe('a.png')
  })

  it('names a pasted image and refuses what cannot be sent, saying why', async () => {
    const files = [
      new File(['x'], '', { type: 'image/jpeg' }),
      new File(['%PDF'], 'report.pdf', { type: 'application/pdf' }),
      new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }),
    ]
    const { added, errors } = await readImages(files, 0)
    expect(added.map((a) => a.name)).toEqual(['pasted image.jpg'])
    expect(errors).toEqual([
      'report.pdf is not a PNG, JPEG, GIF or WebP image: save it as PNG or JPEG first.',
      'logo.svg is not a PNG, JPEG, GIF or WebP image: save it as PNG or JPEG first.',
    ])
  })

  it('takes no more than a request takes', async () => {
    const { added, errors } = await readImages([png('a.png'), png('b.png')], MAX_IMAGES - 1)
    expect(added.map((a) => a.name)).toEqual(['a.png'])
    expect(errors).toEqual([`b.png was not attached: a request takes at most ${MAX_IMAGES} images.`])
  })

  it('refuses an image over 20 MB', async () => {
    const big = png('huge.png', (20 << 20) + 1)
    const { added, errors } = await readImages([big], 0)
    expect(added).toEqual([])
    expect(errors[0]).toBe('huge.png is 20.0 MB, more than the 20 MB an image may be: make it smaller.')
  })
})

describe('describeImage', () => {
  it('gives the name with what is known of it', () => {
    expect(describeImage({ name: 'a.png', bytes: 2048, width: 64, height: 48 })).toBe('a.png (64×48, 2 KB)')
    expect(describeImage({ name: 'a.png', bytes: 3 << 20 })).toBe('a.png (3.0 MB)')
    expect(describeImage({ name: 'a.png', bytes: 149 })).toBe('a.png (149 B)')
    expect(describeImage({ name: 'a.png' })).toBe('a.png')
  })
})
