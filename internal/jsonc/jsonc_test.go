package jsonc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestStandard(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     any // what it decodes to
	}{
		{"plain", `{"a": [1, 2]}`, map[string]any{"a": []any{1.0, 2.0}}},
		{"line comments", "{\n  // servers\n  \"a\": 1 // one\n}", map[string]any{"a": 1.0}},
		{"block comments", "{/* x */\"a\": /* multi\nline */ 1}", map[string]any{"a": 1.0}},
		{"trailing commas", `{"a": [1, 2,], "b": {"c": 3,},}`, map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"c": 3.0}}},
		{"a comma before a comment and a brace", "{\"a\": 1, // last\n}", map[string]any{"a": 1.0}},
		{"slashes in strings stay", `{"url": "https://x.example/a//b", "c": "/* not */", "d": "// no"}`, map[string]any{"url": "https://x.example/a//b", "c": "/* not */", "d": "// no"}},
		{"escaped quotes in strings", `{"a": "say \"hi\" // there", "b": "back\\"}`, map[string]any{"a": `say "hi" // there`, "b": `back\`}},
		{"a comma in a string before a brace", `{"a": ",}"}`, map[string]any{"a": ",}"}},
		{"utf-8 bom", "\ufeff{\"a\": \"é\"}", map[string]any{"a": "é"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Standard([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
			if !strings.HasPrefix(c.in, "\ufeff") && len(out) != len(c.in) {
				t.Errorf("length %d, want %d: offsets in errors would not point at the file", len(out), len(c.in))
			}
		})
	}
}

// TestUTF16 reads what PowerShell's > writes: UTF-16 with a byte order
// mark, little-endian (and big-endian).
func TestUTF16(t *testing.T) {
	text := "{\"mcpServers\": {\"é\": {\"command\": \"npx\"}}}"
	u := utf16.Encode([]rune(text))
	le, be := []byte{0xFF, 0xFE}, []byte{0xFE, 0xFF}
	for _, r := range u {
		le = append(le, byte(r), byte(r>>8))
		be = append(be, byte(r>>8), byte(r))
	}
	for name, b := range map[string][]byte{"le": le, "be": be} {
		out, err := Standard(b)
		if err != nil || string(out) != text {
			t.Errorf("%s: %q %v", name, out, err)
		}
	}
}

func TestUnclosedComment(t *testing.T) {
	_, err := Standard([]byte("{\n\"a\": 1 /* open\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("unclosed comment: %v", err)
	}
	// Not JSON is left for the decoder to say.
	out, err := Standard([]byte("{\"a\": / 1}"))
	if err != nil || json.Unmarshal(out, new(any)) == nil {
		t.Errorf("a lone slash: %q %v", out, err)
	}
}
