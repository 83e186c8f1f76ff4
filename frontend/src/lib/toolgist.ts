/** Argument names that say most about a call, first in its one-line gist. */
const TELLING = ['command', 'cmd', 'path', 'file', 'url', 'uri', 'query', 'pattern', 'from', 'to', 'source', 'destination', 'name', 'key']

/** How long a gist runs before it is cut. */
const GIST_MAX = 90

/**
 * A call's arguments on one line, for the collapsed tool card: the values
 * of its plain arguments (telling names first, long texts last), cut at
 * GIST_MAX characters; "" when there are none or the text is not a JSON
 * object.
 */
export function toolGist(args: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    return ''
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return ''
  const plain = Object.entries(parsed as Record<string, unknown>)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v) && String(v).trim() !== '')
    .map(([k, v]) => ({ k, v: String(v).replace(/\s+/g, ' ').trim() }))
  const rank = (e: { k: string; v: string }) => {
    const i = TELLING.indexOf(e.k.toLowerCase())
    return (e.v.length > 60 ? 100 : 0) + (i < 0 ? TELLING.length : i)
  }
  const gist = plain
    .sort((a, b) => rank(a) - rank(b))
    .map((e) => e.v)
    .join('  ')
  return gist.length > GIST_MAX ? gist.slice(0, GIST_MAX - 1).trimEnd() + '…' : gist
}
