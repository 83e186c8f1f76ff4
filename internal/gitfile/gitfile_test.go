package gitfile

import "testing"

func TestTarget(t *testing.T) {
	for _, c := range []struct {
		text, want string
		ok         bool
	}{
		{"gitdir: ../.git/modules/sub\n", "/w/.git/modules/sub", true},
		{"gitdir:/w/.git/worktrees/wt", "/w/.git/worktrees/wt", true},
		{"gitdir: a/../b", "/w/sub/b", true},
		{"gitdir: \n", "", false},
		{"not a git file\n", "", false},
		{"gitdir: x\ngitdir: y\n", "", false},
	} {
		got, ok := Target("/w/sub/.git", c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.text, got, ok, c.want, c.ok)
		}
	}
}
