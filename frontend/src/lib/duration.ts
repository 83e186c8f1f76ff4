/**
 * A span of time as a person reads it: "40 ms", "1.2 s", "12 s",
 * "3 min 5 s", "2 h 5 min"; "—" for one that is not a span.
 */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`
  if (ms < 9950) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`
  const min = Math.round(s / 60)
  return min % 60 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min / 60} h`
}
