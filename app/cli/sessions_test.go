package cli

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
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// TestSessionsRedact: what an older Shrimp kept verbatim (events, the
// history, a kept output, the title, a summary) has its secrets taken out
// by `shrimp sessions redact`, and no byte of them is left in the data
// folder's files; the sessions still open.
func TestSessionsRedact(t *testing.T) {
	data := t.TempDir()
	token := "ghp_" + strings.Repeat("Rt5", 12)
	key := "AKIA" + "ZXCVBNMASDFGHJKL" // built here, so this file holds no key
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "s1", Title: "use " + token}); err != nil {
		t.Fatal(err)
	}
	// As an older Shrimp stored them: whole, and in many small writes.
	for i := range 600 {
		text := "piece "
		if i == 300 {
			text = "AWS_ACCESS_KEY_ID=" + key + "\n"
		}
		if err := st.AppendEvents(ctx, []agent.Event{{Session: "s1", Seq: int64(i + 1), Type: agent.TypeToken, Time: time.Now(), Data: agent.Delta{Text: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AppendMessages(ctx, "s1", []api.Message{{Role: "user", Content: "my token is " + token}, {Role: "tool", ToolName: "fs.read", Content: "AWS_ACCESS_KEY_ID=" + key}}); err != nil {
		t.Fatal(err)
	}
	// A long one, stored over several pages: rewritten, its old pages are
	// freed but not wiped until the file is compacted.
	if _, err := st.KeepOutput(ctx, "s1", "/w", "fs.read", strings.Repeat("log line\n", 4000)+"token="+token+"\n"+strings.Repeat("log line\n", 40)); err != nil {
		t.Fatal(err)
	}
	if err := st.Summaries().Put(ctx, store.SessionSummary{SessionID: "s1", Text: "the user's token is " + token, Covers: 2}); err != nil {
		t.Fatal(err)
	}
	// What else an older Shrimp kept of that request: its run's measures, a
	// working note, and the procedure it learned (trigger, wordings,
	// example arguments), indexed by Bleve and encoded as a sentence, and
	// a recall declined for it.
	now := time.Now()
	request := "push to github with the token " + token
	if err := st.Metrics().Save(ctx, store.RunMetric{SessionID: "s1", RunSeq: 1, Request: request, StartedAt: now, Recalled: "[]", Chain: "[]"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Working().Put(ctx, store.WorkingEntry{SessionID: "s1", Key: "auth", Value: token, Updated: now}); err != nil {
		t.Fatal(err)
	}
	trig, _ := json.Marshal([]string{request})
	ex, _ := json.Marshal([]map[string]string{{"command": "git remote set-url origin https://" + token + "@github.com/me/x"}, {"command": "git push"}, {"command": "git status"}})
	if _, err := st.Procedures().Save(ctx, store.Procedure{ID: "p1", Trigger: request, Triggers: string(trig), Tools: `["shell.run","shell.run","shell.run"]`,
		Examples: string(ex), Sessions: `["s1"]`, Seq: 1, CreatedAt: now, LastUsed: now}); err != nil {
		t.Fatal(err)
	}
	if err := st.Vectors().Put(ctx, store.SentenceVector{Text: request, Model: "test", Vec: []byte{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Declines().Add(ctx, store.RecallDecline{ProcedureID: "p1", Wording: request, Request: request, Session: "s1", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	mem, err := procedures.Open(ctx, st, data)
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := mem.Recall(ctx, request, func(string) bool { return true }, 3); err != nil || len(hits) != 1 {
		t.Fatalf("the old procedure is not recalled before: %v %v", hits, err)
	}
	// With another Shrimp holding procedural memory (its own copy of the
	// procedures, which it would write back), nothing is changed.
	if code, _, errOut := run("--data-dir", data, "sessions", "redact"); code != 1 || !strings.Contains(errOut, "close it first") {
		t.Fatalf("redact beside another Shrimp: exit %d, %q", code, errOut)
	}
	if s, err := st.Session(ctx, "s1"); err != nil || !strings.Contains(s.Title, token) {
		t.Fatalf("redact beside another Shrimp changed the title: %q %v", s.Title, err)
	}
	mem.Close()
	st.Close()

	code, out, errOut := run("--data-dir", data, "sessions", "redact")
	if code != 0 || !strings.Contains(out, "Took secrets out of 11 stored rows") || !strings.Contains(out, "1 learned procedures") || !strings.Contains(out, "Rebuilt the procedure index") {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
	err = filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range []string{token, key, strings.ToLower(token)} { // an index keeps words in lower case
			if i := bytes.Index(b, []byte(s)); i >= 0 {
				t.Errorf("%s still holds %q: %q", path, s, b[max(0, i-200):i+60])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = run("--data-dir", data, "sessions", "show", "s1")
	if code != 0 || !strings.Contains(out, "[REDACTED:github-token]") {
		t.Errorf("the redacted session does not show: %d %q", code, out)
	}
	code, out, _ = run("--data-dir", data, "procedures", "show", "p1")
	if code != 0 || !strings.Contains(out, "push to github with the token [REDACTED:github-token]") {
		t.Errorf("the rewritten procedure: %d %q", code, out)
	}
	code, out, _ = run("--data-dir", data, "procedures", "recall", "push to github with the token")
	if code != 0 || !strings.Contains(out, "p1") {
		t.Errorf("the rewritten procedure is not recalled: %d %q", code, out)
	}
	if code, out, _ := run("--data-dir", data, "sessions", "redact"); code != 0 || !strings.Contains(out, "No secrets found") {
		t.Errorf("a second pass: %d %q", code, out)
	}
}
