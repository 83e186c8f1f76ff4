// Images attached to a request in the window: picked, pasted or dropped.
// The backend checks them again (package attach); these checks say at
// once what cannot be sent, before the request is typed to its end.

/** An image attached to a request that is not sent yet. */
export interface Attached {
  name: string
  type: string
  /** The file's bytes in base64, as the Send binding takes them. */
  data: string
  /** A data URL of it, for its thumbnail (the window's CSP allows data: images only). */
  url: string
  bytes: number
}

/** What the backend takes (attach.MaxBytes, attach.MaxPerRequest). */
export const MAX_IMAGE_BYTES = 20 << 20
export const MAX_IMAGES = 8
/** The formats Ollama decodes. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp']

function dataURL(f: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader()
    r.onload = () => resolve(String(r.result))
    r.onerror = () => reject(r.error ?? new Error('could not be read'))
    r.readAsDataURL(f)
  })
}

function size(n: number): string {
  if (n < 1024) return `${n} B`
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`
}

/**
 * Reads files to attach after the have already attached: the images among
 * them, and a sentence for each one refused (not an image Ollama decodes,
 * too large, one too many). A file without a name (a pasted screenshot)
 * is called "pasted image".
 */
export async function readImages(files: File[], have: number): Promise<{ added: Attached[]; errors: string[] }> {
  const added: Attached[] = []
  const errors: string[] = []
  for (const f of files) {
    const name = f.name || `pasted image.${(f.type.split('/')[1] ?? 'png').replace('jpeg', 'jpg')}`
    if (!IMAGE_TYPES.includes(f.type)) {
      errors.push(`${name} is not a PNG, JPEG, GIF or WebP image: save it as PNG or JPEG first.`)
    } else if (f.size > MAX_IMAGE_BYTES) {
      errors.push(`${name} is ${size(f.size)}, more than the ${MAX_IMAGE_BYTES >> 20} MB an image may be: make it smaller.`)
    } else if (have + added.length >= MAX_IMAGES) {
      errors.push(`${name} was not attached: a request takes at most ${MAX_IMAGES} images.`)
    } else {
      try {
        const url = await dataURL(f)
        added.push({ name, type: f.type, url, data: url.slice(url.indexOf(',') + 1), bytes: f.size })
      } catch (e) {
        errors.push(`${name} could not be read: ${String(e)}`)
      }
    }
  }
  return { added, errors }
}

/** "shot.png, 240 KB": what a thumbnail's title says. */
export function describeImage(a: { name: string; bytes?: number; width?: number; height?: number }): string {
  const dims = a.width && a.height ? `${a.width}×${a.height}, ` : ''
  return a.bytes ? `${a.name} (${dims}${size(a.bytes)})` : a.name
}
