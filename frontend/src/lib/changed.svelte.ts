import { untrack } from 'svelte'
import { debounce } from './debounce'

/**
 * Calls fn, debounced by ms, each time get() gives another value than the
 * last it gave (not for the first: the view loads that itself). Call it
 * while a component initialises; it follows for the component's life.
 */
export function onChange(get: () => unknown, fn: () => void, ms = 300): void {
  const later = debounce(fn, ms)
  let seen = untrack(get)
  $effect(() => {
    const now = get()
    if (now !== seen) {
      seen = now
      later()
    }
  })
}
