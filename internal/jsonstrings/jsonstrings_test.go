package jsonstrings

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMap: every string is rewritten, keys and nested ones too; the value
// given is not changed; one with nothing to change comes back as it was.
func TestMap(t *testing.T) {
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	upper := strings.ToUpper
	for _, tt := range []struct {
		in, want string
		changed  bool
	}{
		{`"a"`, `"A"`, true},
		{`{"k":["x",{"y":1,"z":"w"}],"n":2}`, `{"K":["X",{"Y":1,"Z":"W"}],"N":2}`, true},
		{`{"K":[1,true,null,{"Y":2.5}]}`, `{"K":[1,true,null,{"Y":2.5}]}`, false},
		{`3`, `3`, false},
	} {
		in := decode(tt.in)
		got, changed := Map(in, upper)
		out, _ := json.Marshal(got)
		if string(out) != tt.want || changed != tt.changed {
			t.Errorf("%s: %s, %v; want %s, %v", tt.in, out, changed, tt.want, tt.changed)
		}
		if again, _ := json.Marshal(in); string(again) != string(mustCompact(t, tt.in)) {
			t.Errorf("%s: the value given became %s", tt.in, again)
		}
	}
}

func mustCompact(t *testing.T, s string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}
