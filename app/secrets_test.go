package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSecretsAreNotKept: secrets a tool read (a .env file, a key, the
// value of this process's own secret environment variable), a long output
// kept behind a handle, and a secret the model wrote into a file's
// content reach the model within the run, but no byte of them is in the
// database files, the procedure index or the events the window gets; the
// next request's history holds the markers.
func TestSecretsAreNotKept(t *testing.T) {
	envSecret := "s3ss10n-t0ken-" + strings.Repeat("q", 12)
	t.Setenv("SHRIMP_TEST_SERVICE_TOKEN", envSecret)
	secrets := []string{
		"AKIA" + "QWERTYUIOPASDFGH", // built here, so this file holds no key
		"ghp_" + strings.Repeat("Zx9", 12),
		"hunter2hunter2",
		envSecret,
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
		"kR7t" + "Qz1x9Lw3Vb8Nm2Ya", // a bearer token, streamed after its header
	}
	ws := t.TempDir()
	env := "AWS_ACCESS_KEY_ID=" + secrets[0] + "\nGITHUB_TOKEN=" + secrets[1] + "\nDB_PASSWORD=" + secrets[2] + "\nSERVICE=" + secrets[3] + "\n"
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	// Long enough to be kept behind a handle.
	key := "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + secrets[4] + "\n-----END OPENSSH PRIVATE KEY-----\n" // split, so this file holds no key
	if err := os.WriteFile(filepath.Join(ws, "dump.txt"), []byte(strings.Repeat("log line\n", 20000)+key), 0o600); err != nil {
		t.Fatal(err)
	}
	var sawSecret bool // the model was given the real content within the run
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" && strings.Contains(last.Content, secrets[1]) {
			sawSecret = true
		}
		tools := 0
		for _, m := range req.Messages {
			tools += len(m.ToolCalls)
		}
		switch {
		case last.Role == "user" && last.Content == "check":
			return ollamatest.Text("ok")
		case tools == 0:
			return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": ".env"}})
		case tools == 1:
			return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "dump.txt"}})
		case tools == 2:
			return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "copy.txt", "content": "token " + secrets[1]}})
		}
		// Streamed as a model streams it: the token in pieces, slowly
		// enough that the loop yields each piece as it comes; the bearer
		// token comes pieces after the header its pattern needs.
		// The private key follows, line by line in pieces of 7 bytes: its
		// lines alone look like any base64.
		tok, bearer := secrets[1], secrets[5]
		pieces := []string{"Your GitHub token is ", tok[:3], tok[3:10], tok[10:25], tok[25:], ".\n", "Send Authorization: Bearer ", bearer[:6], bearer[6:], " with it.\n", "Your key:\n"}
		for i := 0; i < len(key); i += 7 {
			pieces = append(pieces, key[i:min(len(key), i+7)])
		}
		return ollamatest.Reply{Text: append(pieces, "Keep it safe."), Delay: 30 * time.Millisecond}
	}})
	data := t.TempDir()
	a := openApp(t, data, srv.URL)
	var seen []string // what the window would get
	var streamed strings.Builder
	sub, err := a.Bus.Subscribe("window", func(_ context.Context, e agent.Event) error {
		raw, _ := e.RawData()
		seen = append(seen, string(raw))
		if d, ok := e.Data.(agent.Delta); ok && e.Type == agent.TypeToken {
			streamed.WriteString(d.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	request := func(session, text string) string {
		id, _, err := ask(t, a, ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := request("", "read my .env and the dump, then copy the token (it is "+secrets[1]+")")
	request(id, "check")
	if err := a.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !sawSecret {
		t.Error("the model never saw the file's real content: redaction reached the run itself")
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "copy.txt")); !strings.Contains(string(got), secrets[1]) {
		t.Errorf("the tool ran with redacted arguments: %q", got)
	}
	// The next request's history carries markers, not secrets.
	reqs := srv.Requests()
	history := ""
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		history += m.Content
	}
	if !strings.Contains(history, "[REDACTED:") {
		t.Errorf("the next request's history has no markers: %.600s", history)
	}
	sub.Close()
	// The answer as streamed, and as stored token by token, put together.
	stored, err := a.Store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tokens strings.Builder
	for _, e := range stored {
		if e.Type == agent.TypeToken {
			raw, _ := e.RawData()
			var d agent.Delta
			_ = json.Unmarshal(raw, &d)
			tokens.WriteString(d.Text)
		}
	}
	for name, text := range map[string]string{"streamed to the window": streamed.String(), "stored": tokens.String()} {
		if !strings.Contains(text, "Your GitHub token is [REDACTED:github-token].") || !strings.Contains(text, "Bearer [REDACTED:bearer-token] with it.") || !strings.Contains(text, "Keep it safe.") {
			t.Errorf("the answer %s: %q", name, text)
		}
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(history, s) {
			t.Errorf("the next request's history holds %q", s)
		}
		for _, ev := range seen {
			if strings.Contains(ev, s) {
				t.Errorf("an event the window got holds %q: %.300s", s, ev)
				break
			}
		}
	}
	// Every file Shrimp wrote: the database, its WAL, the index.
	err = filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSecretsAreNotFacts: a model that tries to remember a token it read
// (carelessly, or told to by a page) is refused, saying why; the fact is
// not stored, so it reaches neither the database nor later prompts. A
// plain fact is remembered. A working-memory note keeps the token's
// marker instead.
func TestSecretsAreNotFacts(t *testing.T) {
	token := "ghp_" + strings.Repeat("Qk7", 12)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "memory.facts.set", Args: map[string]any{"key": "github_token", "value": "the user's token is " + token}}),
		ollamatest.Tools(ollamatest.Call{Name: "memory.facts.set", Args: map[string]any{"key": "editor", "value": "uses vim"}}),
		ollamatest.Tools(ollamatest.Call{Name: "memory.working.set", Args: map[string]any{"key": "token", "value": "found " + token + " in .env"}}),
		ollamatest.Text("Noted."),
	}})
	data := t.TempDir()
	a := openApp(t, data, srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Approve: approval.ModeAll, Text: "remember my setup"})
	if err != nil {
		t.Fatal(err)
	}
	results := toolResults(events)
	if len(results) != 3 || !strings.Contains(results[0].Error, "not stored: it holds what looks like a secret") || results[1].Error != "" ||
		!strings.Contains(results[2].Output, "replaced by a marker") {
		t.Fatalf("results %+v", results)
	}
	f, err := a.Facts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if list := f.List(); len(list) != 1 || list[0].Key != "editor" {
		t.Fatalf("facts %+v", list)
	}
	_ = a.Close(context.Background())
	err = filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("the token is in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
