package mcp

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineTap: an HTTP answer is passed on byte for byte and its lines
// are seen whole however the body is read; a line past maxTapLine is not.
func TestLineTap(t *testing.T) {
	long := strings.Repeat("x", maxTapLine+1)
	body := "event: message\r\ndata: {\"a\":1}\n\n" + long + "\nlast"
	for name, r := range map[string]func(io.Reader) io.Reader{
		"whole":       func(r io.Reader) io.Reader { return r },
		"byte a time": iotest.OneByteReader,
		"half":        iotest.HalfReader,
	} {
		var seen []string
		tap := &lineTap{ReadCloser: io.NopCloser(r(strings.NewReader(body))), see: func(b []byte) { seen = append(seen, string(b)) }}
		got, err := io.ReadAll(tap)
		if err != nil || string(got) != body {
			t.Fatalf("%s: body changed (%d bytes, %v)", name, len(got), err)
		}
		if want := "event: message\r|data: {\"a\":1}|last"; strings.Join(seen, "|") != want {
			t.Errorf("%s: saw %.80q", name, strings.Join(seen, "|"))
		}
	}
}
