/** The colour theme: light, dark, or the system's. Kept in localStorage. */
export type Theme = 'system' | 'light' | 'dark'

class ThemeState {
  value = $state<Theme>('system')

  constructor() {
    const saved = typeof localStorage !== 'undefined' ? localStorage.getItem('shrimp.theme') : null
    if (saved === 'light' || saved === 'dark' || saved === 'system') this.value = saved
    this.#applyToDocument()
  }

  set(t: Theme): void {
    this.value = t
    try {
      localStorage.setItem('shrimp.theme', t)
    } catch {
      // storage unavailable: the choice lasts for this run
    }
    this.#applyToDocument()
  }

  #applyToDocument(): void {
    if (typeof document === 'undefined') return
    if (this.value === 'system') document.documentElement.removeAttribute('data-theme')
    else document.documentElement.setAttribute('data-theme', this.value)
  }
}

export const theme = new ThemeState()
