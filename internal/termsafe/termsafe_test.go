package termsafe

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain text passes", "hello, world\n\ttabbed", "hello, world\n\ttabbed"},
		{"other scripts and emoji pass", "naïve 日本語 👩‍💻 ok", "naïve 日本語 👩‍💻 ok"},
		{"windows line ends pass", "a\r\nb\r\n", "a\r\nb\r\n"},
		{"hide what follows", "done\x1b[8m", `done\x1b[8m`},
		{"clipboard write", "\x1b]52;c;Y3VybCBldmlsfHNo\x07", `\x1b]52;c;Y3VybCBldmlsfHNo\x07`},
		{"erase a line and rewrite it", "safe\x1b[2K\rrm -rf ~", `safe\x1b[2K\x0drm -rf ~`},
		{"backspaces and delete", "ab\b\b\x7f", `ab\x08\x08\x7f`},
		{"eight-bit CSI", "a\u009b31mred", `a\u009b31mred`},
		{"bidi override and isolate", "file\u202etxt.exe\u2066x\u2069", `file\u202etxt.exe\u2066x\u2069`},
		{"not UTF-8", "a\xffb\x9b", `a\xffb\x9b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(Escape([]byte(c.in))); got != c.want {
				t.Fatalf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestJSONStaysTheSameJSON: JSON lines with C1 controls and bidi marks in
// their strings decode to the same values after escaping.
func TestJSONStaysTheSameJSON(t *testing.T) {
	in := map[string]string{"text": "a\u009b31m b\u202ec \x1b[8m d\r e"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	esc := Escape(raw)
	if bytes.ContainsRune(esc, 0x9b) || bytes.ContainsRune(esc, 0x202e) {
		t.Fatalf("escaped JSON still holds a raw control: %q", esc)
	}
	var out map[string]string
	if err := json.Unmarshal(esc, &out); err != nil {
		t.Fatalf("escaped JSON %q does not decode: %v", esc, err)
	}
	if out["text"] != in["text"] {
		t.Fatalf("decoded %q, want %q", out["text"], in["text"])
	}
}

// TestWriterHoldsSplitCharacters: a character or a CRLF split between two
// writes comes out whole, not as escapes of its pieces; Flush writes what
// is left.
func TestWriterHoldsSplitCharacters(t *testing.T) {
	text := "é 日本 👩‍💻 a\r\nb ok"
	for split := 0; split <= len(text); split++ {
		var out bytes.Buffer
		w := New(&out)
		for _, part := range []string{text[:split], text[split:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("split %d: Write = %d, %v", split, n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != text {
			t.Fatalf("split at %d: wrote %q, want %q", split, out.String(), text)
		}
	}
	var out bytes.Buffer
	w := New(&out)
	_, _ = w.Write([]byte("end\r"))
	_, _ = w.Write([]byte("日"[:2]))
	if out.String() != `end\x0d` {
		t.Fatalf("a carriage return not followed by a newline: %q", out.String())
	}
	_ = w.Flush()
	if got := out.String(); got != `end\x0d\xe6\x97` || !utf8.ValidString(got) {
		t.Fatalf("after Flush: %q", got)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterReportsErrors(t *testing.T) {
	w := New(failing{})
	if n, err := w.Write([]byte("x")); err == nil || n != 0 {
		t.Fatalf("Write = %d, %v; want the writer's error", n, err)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a\x1b[8mb", "\r\n\r", "\u009b\u202e", "\xe6\x97", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(Escape([]byte(s)))
		for i, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t' && !(r == '\r' && i+1 < len(got) && got[i+1] == '\n')) || r == 0x7f || obeyed(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, got, r)
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, got)
		}
		if again := string(Escape([]byte(got))); again != got {
			t.Fatalf("Escape is not idempotent: %q then %q", got, again)
		}
	})
}
