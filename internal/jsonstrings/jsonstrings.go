// Package jsonstrings rewrites every string in a decoded JSON value
// (what encoding/json gives an any): values and object keys, at any depth.
//
// Its contract: Map never changes the value it is given; a map or slice
// holding a changed string is a copy, and one that holds none is returned
// as it was, so a caller can tell (and skip) a value with nothing to
// change.
package jsonstrings

// Map returns v with f applied to every string in it, keys included, and
// whether any string changed.
func Map(v any, f func(string) string) (any, bool) {
	switch t := v.(type) {
	case string:
		n := f(t)
		return n, n != t
	case []any:
		out, changed := make([]any, len(t)), false
		for i, e := range t {
			var ch bool
			out[i], ch = Map(e, f)
			changed = changed || ch
		}
		if changed {
			return out, true
		}
	case map[string]any:
		out, changed := make(map[string]any, len(t)), false
		for k, e := range t {
			nk := f(k)
			n, ch := Map(e, f)
			out[nk] = n
			changed = changed || ch || nk != k
		}
		if changed {
			return out, true
		}
	}
	return v, false
}
