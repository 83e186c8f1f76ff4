import type { BusEvent } from '../backend/types'

/** Every bus event the window has received, newest last, capped. */
export class Timeline {
  events = $state.raw<BusEvent[]>([])
  readonly cap: number

  constructor(cap = 10_000) {
    this.cap = cap
  }

  apply(batch: BusEvent[]): void {
    const next = this.events.concat(batch)
    this.events = next.length > this.cap ? next.slice(next.length - this.cap) : next
  }
}
