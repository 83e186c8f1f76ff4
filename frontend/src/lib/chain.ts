// A procedure's chain by its shape, as the Go package backend/procedures/chain
// shows it: calls of one tool in a row are one step ("fs.read ×20"), so the
// same chore over three files or twenty reads as one method and a long run
// does not draw twenty boxes. The Go side compares chains this way too.

/** One step of a chain's shape: a tool, how many calls of it came in a row, and the first call's index. */
export interface Step {
  tool: string
  count: number
  start: number
}

/** steps collapses calls of one tool in a row into one step. */
export function steps(tools: readonly string[]): Step[] {
  const out: Step[] = []
  tools.forEach((tool, i) => {
    const last = out[out.length - 1]
    if (last && last.tool === tool) last.count++
    else out.push({ tool, count: 1, start: i })
  })
  return out
}

/** chainText is a chain as one line, its steps by shape: "fs.list → fs.read ×3 → fs.write". */
export function chainText(tools: readonly string[]): string {
  return steps(tools)
    .map((s) => (s.count > 1 ? `${s.tool} ×${s.count}` : s.tool))
    .join(' → ')
}
