import type { EmbedStatus } from './types'

/** How often Settings asks again while the embedding model is still at work. */
export const EMBED_POLL_MS = 4000

/** Says whether the embedding model still has work to report on. */
export function embedBusy(s: EmbedStatus | null): boolean {
  return !!s && !!s.model && (s.pending > 0 || s.failed > 0 || !!s.error || (!s.in_use && s.wordings >= s.needed))
}

/** Words the embedding model's progress for the line under its name in Settings ("" without one). */
export function embedStatusText(s: EmbedStatus | null, now = new Date()): string {
  if (!s || !s.model) return ''
  const counts = `${s.embedded} of ${s.wordings} stored requests`
  const done = `${counts} have its vectors`
  if (s.error && s.embedded < s.wordings) {
    let when = ''
    if (s.retry) {
      const at = new Date(s.retry)
      const secs = Math.max(0, Math.round((at.getTime() - now.getTime()) / 1000))
      when = secs < 90 ? ` Tried again in ${secs} s.` : ` Tried again at ${at.toLocaleTimeString()}.`
    }
    return `${done}; the last try failed: ${s.error}.${when} Until then recall uses the built-in encoder for them.`
  }
  if (s.in_use) return `In use: recall compares meanings with ${s.model} (${counts} embedded).`
  if (s.wordings < s.needed) {
    return `${done}; recall uses ${s.model} once ${s.needed} have them (the built-in encoder until then).`
  }
  return `Embedding in the background: ${done}; recall uses ${s.model} once ${s.needed} have them.`
}
