package chain

import (
	"slices"
	"testing"
)

func TestChain(t *testing.T) {
	for _, c := range []struct {
		tools []string
		text  string
		steps []Step
	}{
		{nil, "", nil},
		{[]string{"fs.list"}, "fs.list", []Step{{"fs.list", 1}}},
		{[]string{"fs.list", "fs.read", "fs.write"}, "fs.list → fs.read → fs.write", []Step{{"fs.list", 1}, {"fs.read", 1}, {"fs.write", 1}}},
		{[]string{"fs.list", "fs.read", "fs.read", "fs.read", "fs.write"}, "fs.list → fs.read ×3 → fs.write", []Step{{"fs.list", 1}, {"fs.read", 3}, {"fs.write", 1}}},
		// Only calls in a row are one step: a tool called again later
		// is a later step of the method.
		{[]string{"fs.read", "shell.run", "fs.read", "fs.read"}, "fs.read → shell.run → fs.read ×2", []Step{{"fs.read", 1}, {"shell.run", 1}, {"fs.read", 2}}},
		{[]string{"shell.run", "shell.run"}, "shell.run ×2", []Step{{"shell.run", 2}}},
	} {
		if got := String(c.tools); got != c.text {
			t.Errorf("String(%q) = %q, want %q", c.tools, got, c.text)
		}
		if got := Steps(c.tools); !slices.Equal(got, c.steps) {
			t.Errorf("Steps(%q) = %v, want %v", c.tools, got, c.steps)
		}
	}
}

func TestSame(t *testing.T) {
	three := []string{"fs.list", "fs.read", "fs.read", "fs.read", "fs.write"}
	for _, c := range []struct {
		other []string
		same  bool
	}{
		{three, true},
		{[]string{"fs.list", "fs.read", "fs.write"}, true},
		{[]string{"fs.list", "fs.read", "fs.read", "fs.read", "fs.read", "fs.read", "fs.write"}, true},
		{[]string{"fs.list", "fs.write"}, false},                                    // a step left out
		{[]string{"fs.list", "fs.read", "fs.write", "fs.read"}, false},              // a step added
		{[]string{"fs.list", "fs.write", "fs.read"}, false},                         // order
		{[]string{"fs.list", "fs.read", "shell.run", "fs.read", "fs.write"}, false}, // a step between the repeats
		{nil, false},
	} {
		if got := Same(three, c.other); got != c.same {
			t.Errorf("Same(%q, %q) = %v, want %v", three, c.other, got, c.same)
		}
		if got := Same(c.other, three); got != c.same {
			t.Errorf("Same is not symmetric for %q", c.other)
		}
	}
}
