/**
 * Returns s with what would not show as itself escaped, as the backend's
 * approval.Visible does: control characters as \xNN, format characters
 * (bidirectional overrides, zero-width) and unassigned ones as \u{NNNN}.
 * For text the user decides on that the backend has not escaped (a path
 * in an approval's heading, a link's mail address).
 */
export function visible(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0
    if (ch === '\n' || ch === '\t') out += ch
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) out += `\\x${c.toString(16).padStart(2, '0')}`
    else if (/[\p{Cf}\p{Cn}\p{Co}\p{Cs}]/u.test(ch) || (/\p{Z}/u.test(ch) && ch !== ' ')) out += `\\u{${c.toString(16).padStart(4, '0')}}`
    else out += ch
  }
  return out
}
