package jsonplain

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, indent, want, err string }{
		{`{"command":"a \u0026\u0026 b \u003e c"}`, "", `{"command":"a && b > c"}`, ""},
		{`{"b":1.50,"a":"\u00e9\/x"}`, "", `{"a":"é/x","b":1.50}`, ""},
		{`[1,2]`, "  ", "[\n  1,\n  2\n]", ""},
		{`"\u2028"`, "", `"\u2028"`, ""},
		{`{} {}`, "", "", "more than one value"},
		{`{`, "", "", "read JSON"},
	} {
		got, err := Canonical([]byte(tc.in), tc.indent)
		if tc.err != "" {
			if err == nil {
				t.Errorf("%s: no error", tc.in)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.in, got, err, tc.want)
		}
		var a, b any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(tc.in), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %s decodes to another value", tc.in, got)
		}
	}
}

func TestPlain(t *testing.T) {
	if got := string(Plain([]byte(`{"a":"x \u0026 y"}`))); got != `{"a":"x & y"}` {
		t.Errorf("%s", got)
	}
	if got := string(Plain([]byte(`not json`))); got != `not json` {
		t.Errorf("%s", got)
	}
}

func TestUnescaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"command":"a \u0026\u0026 b \u003e c","path":"x"}`, `{"command":"a && b > c","path":"x"}`},
		{`{"z":"\u003C/b\u003E","a":1}`, `{"z":"</b>","a":1}`}, // order kept, upper-case hex too
		{`{"p":"C:\\u003e"}`, `{"p":"C:\\u003e"}`},             // an escaped backslash, then text
		{`{"p":"\u00e9 \" \\"}`, `{"p":"\u00e9 \" \\"}`},       // other escapes untouched
		{`{"p":"\u00`, `{"p":"\u00`},                           // cut short: copied
		{`plain`, `plain`},
	} {
		got := string(Unescaped([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tc.in), &b) == nil && (json.Unmarshal([]byte(got), &a) != nil || !reflect.DeepEqual(a, b)) {
			t.Errorf("%s: %s decodes to another value", tc.in, got)
		}
	}
}

// TestNewEncoder: what it writes has no HTML escapes, in the values it
// encodes nor in the raw JSON it copies, and decodes to what
// encoding/json's output decodes to.
func TestNewEncoder(t *testing.T) {
	v := struct {
		Command string          `json:"command"`
		Stored  json.RawMessage `json:"stored"`
	}{"echo a > b.txt && wc -l < b.txt", json.RawMessage(`{"command":"a \u0026\u0026 b \u003e c","key":"\\u003e stays escaped"}`)}
	var got strings.Builder
	if err := NewEncoder(&got).Encode(v); err != nil {
		t.Fatal(err)
	}
	want := `{"command":"echo a > b.txt && wc -l < b.txt","stored":{"command":"a && b > c","key":"\\u003e stays escaped"}}` + "\n"
	if got.String() != want {
		t.Fatalf("NewEncoder wrote %s, want %s", got.String(), want)
	}
	std, _ := json.Marshal(v)
	var a, b any
	if json.Unmarshal(std, &a) != nil || json.Unmarshal([]byte(got.String()), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("decodes to %v, encoding/json's to %v", b, a)
	}
}
