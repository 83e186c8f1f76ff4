package plural

import "testing"

func TestN(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 tools"}, {1, "1 tool"}, {2, "2 tools"}, {-1, "-1 tools"}, {1000, "1000 tools"}} {
		if got := N(tt.n, "tool", "tools"); got != tt.want {
			t.Errorf("N(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
