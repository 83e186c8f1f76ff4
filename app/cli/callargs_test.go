package cli

import (
	"strings"
	"testing"
)

func TestCallArgs(t *testing.T) {
	long := strings.Repeat("line of text ", 20)
	for _, c := range []struct{ name, args, want string }{
		{"the path before the content", `{"content":"` + long + `","path":"summary.txt"}`, `{"path":"summary.txt","content":"line of text line of text line of text line of text line of text line of text line of t…`},
		{"a command first", `{"timeout":30,"command":"make test"}`, `{"command":"make test","timeout":30}`},
		{"one argument as it is", `{"path":"."}`, `{"path":"."}`},
		{"not an object", `["a","b"]`, `["a","b"]`},
		{"spaces made one", "{\"b\": 1,\n \"a\":  2}", `{"a":2,"b":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := callArgs([]byte(c.args), 120); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
