// The only module that listens to the Wails runtime's events.
import { EventsOn } from '../../../wailsjs/runtime/runtime'
import type { BusEvent } from './types'

/** The window event that carries batches of bus events (desktop.EventsName). */
export const EVENTS_NAME = 'shrimp:events'

/**
 * The window event that carries what another Shrimp process (`shrimp chat`
 * in a terminal) stored on the same data folder (desktop.ForeignName): for
 * the timeline, the lists and the chat of the session open here, never for
 * approvals or questions.
 */
export const FOREIGN_EVENTS_NAME = 'shrimp:foreign-events'

type Schedule = (cb: () => void) => unknown

/**
 * Subscribes to bus events. Batches from Go are buffered outside any
 * reactive state and handed to onBatch at most once per animation frame,
 * so a fast stream costs one render per frame. Returns the unsubscribe.
 */
export function subscribeEvents(
  onBatch: (events: BusEvent[]) => void,
  schedule: Schedule = (cb) => requestAnimationFrame(cb),
): () => void {
  return subscribeTo(EVENTS_NAME, onBatch, schedule)
}

/** Subscribes to another process's events (FOREIGN_EVENTS_NAME), batched as subscribeEvents does. */
export function subscribeForeign(
  onBatch: (events: BusEvent[]) => void,
  schedule: Schedule = (cb) => requestAnimationFrame(cb),
): () => void {
  return subscribeTo(FOREIGN_EVENTS_NAME, onBatch, schedule)
}

function subscribeTo(name: string, onBatch: (events: BusEvent[]) => void, schedule: Schedule): () => void {
  let buffer: BusEvent[] = []
  let scheduled = false
  let active = true
  const flush = () => {
    scheduled = false
    if (!active || buffer.length === 0) return
    const batch = buffer
    buffer = []
    onBatch(batch)
  }
  const off = EventsOn(name, (batch: BusEvent[] | null) => {
    if (!batch || batch.length === 0) return
    buffer.push(...batch)
    if (!scheduled) {
      scheduled = true
      schedule(flush)
    }
  })
  return () => {
    active = false
    off()
  }
}

/** The window event that asks to show a session (desktop.ShowSessionName). */
export const SHOW_SESSION_NAME = 'shrimp:show-session'

/** Calls show with a session's id when a desktop notification about it is clicked. Returns the unsubscribe. */
export function onShowSession(show: (session: string) => void): () => void {
  return EventsOn(SHOW_SESSION_NAME, (id: string) => {
    if (typeof id === 'string' && id !== '') show(id)
  })
}

/** The window event that names a hook a request waits for before its run starts (desktop.PreparingName). */
export const PREPARING_NAME = 'shrimp:preparing'

/** A hook a request waits for before its run starts (session-start, pre-request), started or done (desktop.Preparing). */
export interface Preparing {
  /** The window's name for the request, sent with it. */
  token: string
  event: string
  /** As messages name it: hook a1 (./setup.sh). */
  hook: string
  done: boolean
}

/** Calls told with each Preparing event. Returns the unsubscribe. */
export function onPreparing(told: (p: Preparing) => void): () => void {
  return EventsOn(PREPARING_NAME, (p: Preparing | null) => {
    if (p && typeof p.token === 'string') told(p)
  })
}
