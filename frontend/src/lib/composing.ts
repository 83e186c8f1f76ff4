// Whether a key belongs to an input method composing text (Chinese,
// Japanese, Korean): Enter there takes a conversion, the arrows pick among
// candidates, Escape cancels. WebKit marks the key that ends a composition
// with keyCode 229 rather than isComposing.
export function composing(e: KeyboardEvent): boolean {
  return e.isComposing || e.keyCode === 229
}
