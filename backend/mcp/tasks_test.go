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
	tools := `data: {"result":{"tools":[` + strings.Repeat(" ", 2*tapProbe) + `]}}`
	result := `{"result":{"content":"` + strings.Repeat("y", 2*tapProbe) + `"}}`
	body := "event: message\r\ndata: {\"a\":1}\n\n" + long + "\n" + result + "\n" + tools + "\nlast"
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
		if want := "event: message\r|data: {\"a\":1}|" + tools + "|last"; strings.Join(seen, "|") != want {
			t.Errorf("%s: saw %.80q", name, strings.Join(seen, "|"))
		}
	}
}

// BenchmarkLineTap is what reading a 4 MiB answer (a large tool result on
// one line, as servers write it) costs through the tap, against reading
// it plain.
func BenchmarkLineTap(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 4<<20) + `"}]}}` + "\n"
	for _, tapped := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "tapped"}[tapped]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var r io.Reader = struct{ io.Reader }{strings.NewReader(body)} // read, not written to
				if tapped {
					r = &lineTap{ReadCloser: io.NopCloser(r), see: (&taskTools{}).see}
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
