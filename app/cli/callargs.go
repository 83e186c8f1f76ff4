package cli

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// telling are the argument names that say most about a call, shown first
// (the window's tool cards put them first too: frontend/src/lib/toolgist.ts).
var telling = []string{"command", "cmd", "path", "file", "url", "uri", "query", "pattern", "from", "to", "source", "destination", "name", "key"}

// longArg is the length past which an argument's value goes last.
const longArg = 60

// callArgs returns a call's arguments on one line of at most n characters,
// an object's telling arguments first and long values last, so that
// "fs.write" shows the path it writes before the content that would fill
// the line.
func callArgs(b []byte, n int) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || len(obj) < 2 {
		return oneLineJSON(b, n)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		r := slices.Index(telling, strings.ToLower(k))
		if r < 0 {
			r = len(telling)
		}
		if len(obj[k]) > longArg {
			r += 100
		}
		return r
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(obj[k])
	}
	buf.WriteByte('}')
	return oneLineJSON(buf.Bytes(), n)
}
