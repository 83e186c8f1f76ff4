package pyliteral

import (
	"encoding/json"
	"testing"
)

// TestParse: a whole text that is one literal reads as its value; text
// with more after it, or none, is no literal.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		text string
		want string // the value as JSON; "" when not a literal
	}{
		{`['python', 'tutorial']`, `["python","tutorial"]`},
		{` {'theme': 'dark', 'size': 14, 'on': True, 'x': None} `, `{"on":true,"size":14,"theme":"dark","x":null}`},
		{`[1, 2.5, -3, 1_000, [], {}]`, `[1,2.5,-3,1000,[],{}]`},
		{`'it\'s' " and more"`, `"it's and more"`},
		{`"grep -E '\d+'"`, `"grep -E '\\d+'"`},
		{`"a\x41\u00e9\U0001F600\101\n"`, `"aAé😀A\n"`},
		{`['a', 'b'] and prose`, ``},
		{`['a', `, ``},
		{``, ``},
		{`print('x')`, ``},
	} {
		v, ok := Parse(tt.text)
		got := ""
		if ok {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.text, got, tt.want)
		}
	}
}
