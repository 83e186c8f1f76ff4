package webview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// machine builds a file system root: nodes are render nodes that open
// (name) or are there but do not (name + "!": a link to nothing, which
// fails for root too, as CI runs), nvidia loads NVIDIA's module.
func machine(t *testing.T, nvidia bool, nodes ...string) string {
	t.Helper()
	root := t.TempDir()
	dri := filepath.Join(root, "dev", "dri")
	if err := os.MkdirAll(dri, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if name, ok := strings.CutSuffix(n, "!"); ok {
			if err := os.Symlink(filepath.Join(root, "gone"), filepath.Join(dri, name)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dri, n), nil, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if nvidia {
		if err := os.MkdirAll(filepath.Join(root, "sys", "module", "nvidia"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name    string
		root    string
		env     func(string) (string, bool)
		gpu     bool
		set     string // WEBKIT_DISABLE_DMABUF_RENDERER set to this, "" when not set
		why     string
		problem string
		blocked string
	}{
		{"no render node (a VM, Xvfb)", machine(t, false), env(), false, "", "no GPU render node", "", ""},
		{"a render node", machine(t, false, "renderD128"), env(), true, "", "render node /dev/dri/renderD128", "", ""},
		{"a node this user cannot open (xrdp, outside the render group)", machine(t, false, "renderD128!"), env(), false, "", "cannot open the GPU's render node /dev/dri/renderD128", "", "/dev/dri/renderD128"},
		{"the second node opens", machine(t, false, "renderD128!", "renderD129"), env(), true, "", "/dev/dri/renderD129", "", ""},
		{"NVIDIA: DMA-BUF off", machine(t, true, "renderD128"), env(), true, "1", "DMA-BUF renderer off", "", ""},
		{"NVIDIA without a node: DMA-BUF off too", machine(t, true), env(), false, "1", "DMA-BUF renderer off", "", ""},
		{"NVIDIA, the user's own setting kept", machine(t, true, "renderD128"), env(dmabuf, "0"), true, "", dmabuf + "=0 as set", "", ""},
		{"on without a node", machine(t, false), env(Override, "on"), true, "", "as SHRIMP_WINDOW_GPU=on asks", "", ""},
		{"off with a node", machine(t, false, "renderD128"), env(Override, "OFF"), false, "", "in software, as", "", ""},
		{"a word that is neither", machine(t, false, "renderD128"), env(Override, "fast"), true, "", "render node", `SHRIMP_WINDOW_GPU="fast" is neither on nor off`, ""},
		{"set but empty", machine(t, false), env(Override, ""), false, "", "no GPU render node", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Choose(tt.root, tt.env)
			if c.GPU != tt.gpu {
				t.Errorf("GPU = %v, want %v (%s)", c.GPU, tt.gpu, c.Why)
			}
			if got := c.Set[dmabuf]; got != tt.set {
				t.Errorf("%s = %q, want %q", dmabuf, got, tt.set)
			}
			if len(c.Set) > 1 {
				t.Errorf("sets %v, want at most %s", c.Set, dmabuf)
			}
			if !strings.Contains(c.Why, tt.why) {
				t.Errorf("Why = %q, want it to say %q", c.Why, tt.why)
			}
			if tt.problem == "" && c.Problem != "" || !strings.Contains(c.Problem, tt.problem) {
				t.Errorf("Problem = %q, want %q", c.Problem, tt.problem)
			}
			if c.Blocked != tt.blocked {
				t.Errorf("Blocked = %q, want %q", c.Blocked, tt.blocked)
			}
		})
	}
}
