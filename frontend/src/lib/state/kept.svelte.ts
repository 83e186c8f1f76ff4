/**
 * What the views' search boxes and filters held, by view and name: a view
 * is taken down while another is shown, and a search the user typed
 * should still be there when they come back (for as long as the window is
 * open).
 */
export const kept = $state<Record<string, string>>({})
