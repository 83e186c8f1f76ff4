package shell

import (
	"io"
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "a\nb\n", "a\nb\n"},
		{"colour", "\x1b[1;31merror\x1b[0m: \x1b[38;5;208mx\x1b[m\n", "error: x\n"},
		{"progress", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"crlf", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"return then clear", "downloading\r\x1b[Kdone\n", "done\n"},
		{"return then nothing", "kept\r\r\n", "kept\n"},
		{"unfinished last line", "no newline\r", "no newline"},
		{"spinner", "working |\b/\b-\b\\\bok\n", "working ok\n"},
		{"backspace over a character of two bytes", "né\bo\n", "no\n"},
		{"title and link", "\x1b]0;my title\x07see \x1b]8;;https://x.example\x1b\\here\x1b]8;;\x1b\\\n", "see here\n"},
		{"clipboard write", "\x1b]52;c;ZXZpbA==\x07safe\n", "safe\n"},
		{"charset and keypad", "\x1b(Bbox\x1b=\n", "box\n"},
		{"cursor moves", "\x1b[2Aup\x1b[10;5Hthere\n", "upthere\n"},
		{"unicode", "héllo 世界\n", "héllo 世界\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Whatever the writes' boundaries, the same text.
			for size := 1; size <= len(tc.in); size++ {
				var b strings.Builder
				term := &terminal{next: &b}
				for i := 0; i < len(tc.in); i += size {
					if _, err := term.Write([]byte(tc.in[i:min(i+size, len(tc.in))])); err != nil {
						t.Fatal(err)
					}
				}
				if err := term.Flush(); err != nil {
					t.Fatal(err)
				}
				if b.String() != tc.want {
					t.Fatalf("in writes of %d: %q, want %q", size, b.String(), tc.want)
				}
			}
		})
	}
}

// TestTerminalLongLine: a line with no end is passed on in pieces, so
// what is held back stays bounded.
func TestTerminalLongLine(t *testing.T) {
	var b strings.Builder
	term := &terminal{next: &b}
	chunk := []byte(strings.Repeat("x", 4096))
	for range 100 {
		if _, err := term.Write(chunk); err != nil {
			t.Fatal(err)
		}
		if len(term.line) > maxLine {
			t.Fatalf("held %d bytes", len(term.line))
		}
	}
	_ = term.Flush()
	if b.Len() != 100*4096 {
		t.Fatalf("passed on %d bytes", b.Len())
	}
}

// FuzzTerminal: whatever a command prints, what is passed on holds no
// escape, carriage return or backspace, is the same however it was cut
// into writes, and is never longer than what was printed.
func FuzzTerminal(f *testing.F) {
	f.Add([]byte("10%\r50%\r\x1b[32m100%\x1b[0m\n"), uint8(3))
	f.Add([]byte("\x1b]8;;https://x\x1b\\link\x1b]8;;\x07 a\b\bb\r\n"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		whole := func(size int) string {
			var b strings.Builder
			term := &terminal{next: &b}
			for i := 0; i < len(in); i += size {
				_, _ = term.Write(in[i:min(i+size, len(in))])
			}
			_ = term.Flush()
			return b.String()
		}
		one := whole(len(in) + 1)
		if strings.ContainsAny(one, "\x1b\r\b") || len(one) > len(in) {
			t.Fatalf("%q -> %q", in, one)
		}
		if other := whole(int(cut%16) + 1); other != one {
			t.Fatalf("%q: %q in one write, %q in writes of %d", in, one, other, cut%16+1)
		}
	})
}

// BenchmarkTerminal measures the terminal filter on a build log with
// colour codes and a progress bar redrawn in it.
func BenchmarkTerminal(b *testing.B) {
	var in strings.Builder
	for i := range 20000 {
		if i%10 == 0 {
			in.WriteString("\r[#####     ] 50%")
			continue
		}
		in.WriteString("\x1b[32mok\x1b[0m  github.com/shrimp-harness/shrimp/backend/x  0.123s\n")
	}
	data := []byte(in.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		term := &terminal{next: io.Discard}
		for i := 0; i < len(data); i += 32 << 10 {
			_, _ = term.Write(data[i:min(i+32<<10, len(data))])
		}
		_ = term.Flush()
	}
}
