/** The user's defaults for new chats, kept in localStorage. */
class Preferences {
  model = $state('')
  approve = $state('ask')

  constructor() {
    try {
      this.model = localStorage.getItem('shrimp.defaultModel') ?? ''
      this.approve = localStorage.getItem('shrimp.defaultApprove') ?? 'ask'
    } catch {
      // storage unavailable: built-in defaults
    }
  }

  /** The workspace of the last chat ('' until the user chose one). */
  get workspace(): string {
    try {
      return localStorage.getItem('shrimp.workspace') ?? ''
    } catch {
      return ''
    }
  }

  set workspace(dir: string) {
    try {
      localStorage.setItem('shrimp.workspace', dir)
    } catch {
      // remembered for this run only
    }
  }

  /** Whether a tour card was dismissed (remembered for this user). */
  toured(id: string): boolean {
    try {
      return localStorage.getItem(`shrimp.tour.${id}`) === 'done'
    } catch {
      return false
    }
  }

  endTour(id: string): void {
    try {
      localStorage.setItem(`shrimp.tour.${id}`, 'done')
    } catch {
      // shown again next time
    }
  }

  set(model: string, approve: string): void {
    this.model = model
    this.approve = approve
    try {
      localStorage.setItem('shrimp.defaultModel', model)
      localStorage.setItem('shrimp.defaultApprove', approve)
    } catch {
      // the choice lasts for this run
    }
  }
}

export const preferences = new Preferences()
