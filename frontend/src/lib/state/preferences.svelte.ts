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
