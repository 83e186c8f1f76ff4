// Package plural writes a count with its noun in the right number for
// what Shrimp tells the user ("1 tool", "6 tools"), so that no message
// reads "6 tool(s)" or "1 files". English only, like the rest of Shrimp's
// messages.
package plural

import "strconv"

// N returns n and the noun for it: one when n is 1, many otherwise
// ("0 tools", "1 tool", "2 tools").
func N(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
