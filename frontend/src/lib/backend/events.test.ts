import { describe, expect, it, vi } from 'vitest'

const handlers: Record<string, (data: unknown) => void> = {}
const off = vi.fn()
vi.mock('../../../wailsjs/runtime/runtime', () => ({
  EventsOn: vi.fn((name: string, cb: (data: unknown) => void) => {
    handlers[name] = cb
    return off
  }),
}))

import { EVENTS_NAME, FOREIGN_EVENTS_NAME, PREPARING_NAME, SHOW_SESSION_NAME, onPreparing, onShowSession, subscribeEvents, subscribeForeign, type Preparing } from './events'
import type { BusEvent } from './types'

const ev = (seq: number): BusEvent => ({ seq, session: 's', type: 'agent:token', time: '', data: {} })

describe('subscribeEvents', () => {
  it('delivers all batches that arrive before a frame as one batch', () => {
    const frames: Array<() => void> = []
    const got: BusEvent[][] = []
    subscribeEvents((b) => got.push(b), (cb) => frames.push(cb))
    handlers[EVENTS_NAME]([ev(1), ev(2)])
    handlers[EVENTS_NAME]([ev(3)])
    expect(frames).toHaveLength(1)
    expect(got).toHaveLength(0)
    frames[0]()
    expect(got).toEqual([[ev(1), ev(2), ev(3)]])
    handlers[EVENTS_NAME]([ev(4)])
    expect(frames).toHaveLength(2)
  })

  it('ignores empty batches and stops after unsubscribe', () => {
    const frames: Array<() => void> = []
    const got: BusEvent[][] = []
    const unsubscribe = subscribeEvents((b) => got.push(b), (cb) => frames.push(cb))
    handlers[EVENTS_NAME](null)
    handlers[EVENTS_NAME]([])
    expect(frames).toHaveLength(0)
    handlers[EVENTS_NAME]([ev(1)])
    unsubscribe()
    frames[0]()
    expect(got).toHaveLength(0)
    expect(off).toHaveBeenCalled()
  })
})

describe('subscribeForeign', () => {
  it("delivers another process's events apart from the bus's", () => {
    const frames: Array<() => void> = []
    const bus: BusEvent[][] = []
    const foreign: BusEvent[][] = []
    subscribeEvents((b) => bus.push(b), (cb) => frames.push(cb))
    subscribeForeign((b) => foreign.push(b), (cb) => frames.push(cb))
    handlers[FOREIGN_EVENTS_NAME]([ev(7)])
    for (const f of frames) f()
    expect(foreign).toEqual([[ev(7)]])
    expect(bus).toHaveLength(0)
  })
})

describe('onShowSession', () => {
  it('passes a clicked notification\'s session on, and nothing that is not one', () => {
    const shown: string[] = []
    onShowSession((id) => shown.push(id))
    handlers[SHOW_SESSION_NAME]('s42')
    handlers[SHOW_SESSION_NAME]('')
    handlers[SHOW_SESSION_NAME]({ id: 'x' })
    expect(shown).toEqual(['s42'])
  })
})

describe('onPreparing', () => {
  it('passes a hook\'s preparing event on, and nothing that is not one', () => {
    const told: Preparing[] = []
    onPreparing((p) => told.push(p))
    const p = { token: 't1', event: 'session-start', hook: 'hook a1 (./setup.sh)', done: false }
    handlers[PREPARING_NAME](p)
    handlers[PREPARING_NAME](null)
    handlers[PREPARING_NAME]({ hook: 'x' })
    expect(told).toEqual([p])
  })
})
