package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExactRuleKeepsNoSecret: "always this exact command" for a command
// that carries a token matches that command and no other, and the
// database holds the command's redacted text and hash, not the token.
func TestExactRuleKeepsNoSecret(t *testing.T) {
	data := t.TempDir()
	a := openApp(t, data, "http://127.0.0.1:1")
	ctx := context.Background()
	token := "ghp_" + strings.Repeat("Wq3", 12)
	cmd := `curl -s -H "Authorization: token ` + token + `" https://api.github.com/user`
	calls := secretCalls{a.Store, a.Recorder.RedactText}
	if err := calls.SetCallRule(ctx, "ws", "shell.run", cmd); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		call string
		want bool
	}{{cmd, true}, {strings.Replace(cmd, token, "ghp_"+strings.Repeat("Wq4", 12), 1), false}, {cmd + " ", false}, {"ls", false}} {
		if got, err := calls.CallRule(ctx, "ws", "shell.run", c.call); err != nil || got != c.want {
			t.Errorf("%q: %v %v; want %v", c.call, got, err, c.want)
		}
	}
	rules, err := a.Store.CallRules(ctx)
	if err != nil || len(rules) != 1 || strings.Contains(rules[0].Call, token) || !strings.Contains(rules[0].Call, "api.github.com/user") || !strings.Contains(rules[0].Call, "sha256") {
		t.Fatalf("rules %+v %v", rules, err)
	}
	if plain := (secretCalls{redact: a.Recorder.RedactText}).key("make test"); plain != "make test" {
		t.Fatalf("a command without a secret is kept as it is: %q", plain)
	}
	_ = a.Close(ctx)
	entries, _ := os.ReadDir(data)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(data, e.Name()))
		if err == nil && bytes.Contains(b, []byte(token)) {
			t.Errorf("the token is in %s", e.Name())
		}
	}
}
