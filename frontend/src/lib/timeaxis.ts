/**
 * timeRange is a time axis's range, in seconds, for points from min to max:
 * at least an hour wide, so a few runs a moment apart read as times of day
 * and not as fractions of a second, with a little room on both sides.
 */
export function timeRange(min: number, max: number, atLeast = 3600): [number, number] {
  const span = Math.max(max - min, atLeast)
  const pad = span * 0.03
  const mid = max - min < atLeast ? max - span / 2 : (min + max) / 2
  return [mid - span / 2 - pad, mid + span / 2 + pad]
}
