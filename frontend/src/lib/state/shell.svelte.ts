/** The views the sidebar switches between. */
export const VIEWS = [
  // icon: an SVG path on a 24×24 grid (no emoji font is assumed)
  { id: 'chat', label: 'Chat', icon: 'M4 5h16v10H9l-5 4z' },
  { id: 'timeline', label: 'Timeline', icon: 'M12 3v18M7 7h5M12 12h5M7 17h5' },
  { id: 'procedures', label: 'Procedures', icon: 'M5 6h4v4H5zM15 14h4v4h-4zM9 8h3v8h3' },
  { id: 'sessions', label: 'Sessions', icon: 'M4 6h16M4 12h16M4 18h10' },
  { id: 'memory', label: 'Memory', icon: 'M6 4h12v16H6zM9 8h6M9 12h6M9 16h3' },
  { id: 'models', label: 'Models', icon: 'M12 3l8 4.5v9L12 21l-8-4.5v-9zM12 12l8-4.5M12 12v9M12 12L4 7.5' },
  { id: 'extensions', label: 'Extensions', icon: 'M4 8h5V6a2 2 0 1 1 4 0v2h5v5h-2a2 2 0 1 0 0 4h2v3H4z' },
  { id: 'usage', label: 'Usage', icon: 'M4 20V10M10 20V4M16 20v-7M22 20H2' },
  { id: 'settings', label: 'Settings', icon: 'M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8zM12 2v3M12 19v3M2 12h3M19 12h3' },
] as const

export type ViewId = (typeof VIEWS)[number]['id']

/** Which view the main pane shows. */
export class Shell {
  view = $state<ViewId>('chat')

  show(id: ViewId): void {
    this.view = id
  }
}
