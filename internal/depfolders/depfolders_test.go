package depfolders

import "testing"

func TestIs(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"node_modules", true},
		{"Node_Modules", true},
		{"vendor", true},
		{".venv", true},
		{".svelte-kit", true}, // build output
		{"build", false},      // often the project's own scripts
		{"src", false},
		{"node_modules/x", false}, // a name, not a path
		{"", false},
	} {
		if got := Is(c.name); got != c.want {
			t.Errorf("Is(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
