package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBashCompletion sources the generated script in a real bash and asks
// it to complete, as the shell would.
func TestBashCompletion(t *testing.T) {
	code, script, _ := run("completion", "bash")
	if code != 0 {
		t.Fatal("completion bash failed")
	}
	file := filepath.Join(t.TempDir(), "shrimp.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line string // the words typed, the last one being completed
		want []string
	}{
		{"shrimp ", []string{"chat", "doctor", "mcp", "hooks", "--data-dir"}},
		{"shrimp mc", []string{"mcp"}},
		{"shrimp mcp ", []string{"list", "status", "add", "remove", "enable", "disable", "tools", "check", "import", "--read-only"}},
		{"shrimp --data-dir /tmp hooks a", []string{"add"}},
		{"shrimp doctor --", []string{"--json", "--rebuild-index"}},
	} {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := "source " + file + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _shrimp; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command("bash", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", c.line, err, out)
		}
		got := strings.Fields(string(out))
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q completes to %v, lacking %s", c.line, got, w)
			}
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		if code, out, _ := run("completion", shell); code != 0 || !strings.Contains(out, "doctor") || !strings.Contains(out, "rebuild-index") {
			t.Errorf("%s completion: %d %.200s", shell, code, out)
		}
		if path, err := exec.LookPath(shell); err == nil {
			f := filepath.Join(t.TempDir(), "c."+shell)
			_, out, _ := run("completion", shell)
			os.WriteFile(f, []byte(out), 0o644)
			if out, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v %s", shell, err, out)
			}
		} else {
			t.Logf("%s is not installed: its script's syntax is not checked", shell)
		}
	}
	if code, _, errOut := run("completion", "powershell"); code != 2 || !strings.Contains(errOut, "bash, zsh or fish") {
		t.Errorf("unknown shell: %d %s", code, errOut)
	}
}

// TestManPage: every command is in the page, and groff reads it without
// a warning.
func TestManPage(t *testing.T) {
	code, page, _ := run("man")
	if code != 0 || !strings.HasPrefix(page, ".TH SHRIMP 1") {
		t.Fatalf("man: %d %.100s", code, page)
	}
	for _, c := range commands() {
		if !strings.Contains(page, "\n.B "+roff(c.name)+"\n") {
			t.Errorf("the man page lacks %s", c.name)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed: the page is not rendered (it is in make test's packages)")
	}
	cmd := exec.Command(groff, "-man", "-ww", "-z", "-Tutf8")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("groff: %v\n%s", err, out)
	}
}
