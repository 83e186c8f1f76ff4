/**
 * The script a hook names by a relative path, or '': the program itself
 * (scripts/check.sh), an argument written ./lint or ../x, or the first
 * argument of a program looked up on PATH (sh scripts/guard.sh). A hook
 * runs in each request's workspace, so each is looked for there. The CLI
 * anchors such paths where `hooks add` runs; the window has no folder to.
 */
export function relativeScript(h: { command: string; args?: string[] }): string {
  const path = (w: string) => w.includes('/') && !w.startsWith('/') && !w.startsWith('~') && !w.startsWith('-') && !/\s|:\/\//.test(w)
  if (path(h.command)) return h.command
  const args = h.args ?? []
  const dotted = args.find((w) => w.startsWith('./') || w.startsWith('../'))
  if (dotted) return dotted
  return !h.command.includes('/') && args.length > 0 && path(args[0]) ? args[0] : ''
}
