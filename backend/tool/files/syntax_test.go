package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONDoubt: which writes leave a .json file unreadable as its kind
// of JSON, and where the doubt says it goes wrong.
func TestJSONDoubt(t *testing.T) {
	const pkg = "{\n  \"name\": \"app\",\n  \"scripts\": {\"test\": \"jest\"}\n}\n"
	const settings = "{\n  // mine\n  \"editor.tabSize\": 2,\n}\n"
	for _, c := range []struct {
		name, path, old string
		existed         bool
		content, want   string // want: part of the doubt; "" for none
	}{
		{"a trailing comma in strict JSON", "package.json", pkg, true, "{\n  \"name\": \"app\",\n  \"scripts\": {\"test\": \"jest\"},\n}\n", "line 4, column 1"},
		{"a comment in strict JSON", "package.json", pkg, true, "{\n  // the app\n  \"name\": \"app\"\n}\n", "not be valid JSON, as it was: line 2"},
		{"valid strict JSON", "package.json", pkg, true, "{\"name\": \"app2\"}\n", ""},
		{"comments where there were comments", ".vscode/settings.json", settings, true, "{\n  // still mine\n  \"editor.tabSize\": 4,\n}\n", ""},
		{"a missing brace where there were comments", ".vscode/settings.json", settings, true, "{\n  // mine\n  \"editor.tabSize\": 4,\n", "comments and trailing commas allowed"},
		{"a new file with comments", "config.json", "", false, "{\"a\": 1, // one\n}", ""},
		{"a new file cut short", "config.json", "", false, "{\"a\": [1, 2", "not be valid JSON (comments and trailing commas allowed): "},
		{"a file that was not JSON", "broken.json", "not json at all", true, "still not", ""},
		{"not a .json file", "notes.txt", "", false, "{", ""},
		{"JSON lines", "log.jsonl", "", false, "{}\n{}\n", ""},
		{"emptied", "package.json", pkg, true, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := syntaxDoubt(c.path, c.old, c.existed, c.content)
			switch {
			case c.want == "" && d != nil:
				t.Errorf("doubted: %s", d.why)
			case c.want != "" && (d == nil || !strings.Contains(d.why, c.want)):
				t.Errorf("doubt %+v, want one saying %q", d, c.want)
			}
		})
	}
}

// TestYAMLAndTOMLDoubt: a YAML or TOML file that read before, or a new
// one without template marks, is not left unreadable unasked.
func TestYAMLAndTOMLDoubt(t *testing.T) {
	const workflow = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
	const cargo = "[package]\nname = \"app\"\nversion = \"0.1.0\"\n"
	for _, c := range []struct {
		name, path, old string
		existed         bool
		content, want   string
	}{
		{"a tab in YAML's indentation", ".github/workflows/ci.yml", workflow, true, "on: push\njobs:\n  test:\n\truns-on: ubuntu-latest\n", "ci.yml would not be valid YAML, as it was: line 4"},
		{"valid YAML", ".github/workflows/ci.yml", workflow, true, workflow + "    steps: []\n", ""},
		{"several YAML documents", "k8s.yaml", "a: 1\n---\nb: 2\n", true, "a: 1\n---\nb: [2\n", "not be valid YAML"},
		{"a new YAML file broken", "compose.yaml", "", false, "services:\n  web:\n\timage: nginx\n", "not be valid YAML: "},
		{"a Helm template", "templates/deploy.yaml", "", false, "metadata:\n  name: {{ .Release.Name }}\n  {{- if .Values.x }}\n", ""},
		{"a template that was not YAML before", "role.yml", "{% for x in y %}\n", true, "{% for x in z %}\n  a: [\n", ""},
		{"a key twice in TOML", "Cargo.toml", cargo, true, cargo + "name = \"again\"\n", "Cargo.toml would not be valid TOML, as it was: line 4, column 1"},
		{"valid TOML", "Cargo.toml", cargo, true, cargo + "edition = \"2021\"\n", ""},
		{"a new TOML file", "pyproject.toml", "", false, "[project\nname = \"x\"\n", "not be valid TOML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := syntaxDoubt(c.path, c.old, c.existed, c.content)
			switch {
			case c.want == "" && d != nil:
				t.Errorf("doubted: %s", d.why)
			case c.want != "" && (d == nil || !strings.Contains(d.why, c.want)):
				t.Errorf("doubt %+v, want one saying %q", d, c.want)
			}
		})
	}
}

// TestJSONLeftBroken: an edit that leaves package.json with a trailing
// comma is refused once, naming where, and the file is as it was; made
// again, it is done (it may be meant).
func TestJSONLeftBroken(t *testing.T) {
	ws, dir := workspace(t, map[string]string{"package.json": "{\n  \"name\": \"app\",\n  \"private\": true\n}\n"})
	edit := EditArgs{Path: "package.json", Old: "  \"private\": true\n", New: "  \"private\": true,\n"}
	_, err := ws.edit(context.Background(), edit)
	if err == nil || !strings.Contains(err.Error(), "package.json would not be valid JSON, as it was: line 4, column 1") {
		t.Fatalf("the first edit: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "package.json")); strings.Contains(string(b), "true,") {
		t.Errorf("the file was changed: %q", b)
	}
	if _, err := ws.edit(context.Background(), edit); err != nil {
		t.Errorf("made again: %v", err)
	}
}
