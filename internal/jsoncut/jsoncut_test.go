package jsoncut

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBound: arguments are kept as given when short, with long
// strings cut (saying how much) when not, and as a note of their size when
// still too long; always valid JSON.
func TestBound(t *testing.T) {
	long := strings.Repeat("é", 2_000_000) // 4 MB, two bytes a character
	many := map[string]any{}
	for i := range 40 {
		many[string(rune('a'+i%26))+strings.Repeat("k", i)] = strings.Repeat("v", 250)
	}
	manyJSON, _ := json.Marshal(many)
	for _, tc := range []struct {
		name, args string
		want       []string // held by the kept example
		max        int      // its most bytes
	}{
		{"short, as given", `{"path":"notes.txt","n":12345678901234567890}`, []string{`"n":12345678901234567890`, `"path":"notes.txt"`}, 60},
		{"a long string cut", `{"path":"big.txt","content":"` + long + `"}`, []string{`"path":"big.txt"`, "more bytes not kept]"}, Max},
		{"long strings in a list", `{"lines":["` + long[:2000] + `","short"]}`, []string{`"short"`, "[1700 more bytes not kept]"}, Max},
		{"too many fields: a note", string(manyJSON), []string{"arguments of " + itoa(len(manyJSON)) + " bytes, not kept"}, 200},
		{"not JSON: a note", `{"content":"` + strings.Repeat("x", 400), []string{"arguments of 412 bytes, not kept"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Bound(json.RawMessage(tc.args))
			if !json.Valid(got) || len(got) > tc.max {
				t.Fatalf("kept %d bytes (valid JSON: %v), want at most %d: %.200s", len(got), json.Valid(got), tc.max, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("kept %.300s, lacks %q", got, w)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
