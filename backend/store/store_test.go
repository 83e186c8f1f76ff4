package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/internal/jsoncut"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "a", Title: "hello", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	args := api.NewToolCallFunctionArguments()
	args.Set("path", ".")
	msgs := []api.Message{{Role: "user", Content: "hi"}, {Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c", Function: api.ToolCallFunction{Name: "fs.list", Arguments: args}}}}, {Role: "tool", Content: "x", ToolName: "fs.list", ToolCallID: "c"}}
	if err := s.AppendMessages(ctx, "a", msgs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Messages(ctx, "a")
	if err != nil || len(got) != 3 || got[1].ToolCalls[0].Function.Arguments.String() != `{"path":"."}` || got[2].ToolCallID != "c" {
		t.Fatalf("messages %+v %v", got, err)
	}
	evs := []agent.Event{{Session: "a", Seq: 1, Type: agent.TypeRunStarted, Time: time.Now(), Data: agent.RunStarted{Text: "hi"}}, {Session: "a", Seq: 2, Type: agent.TypeToken, Time: time.Now(), Data: agent.Delta{Text: "yo"}}}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	// Writing the same seq again is a no-op, not a duplicate.
	if err := s.AppendEvents(ctx, evs[1:]); err != nil {
		t.Fatal(err)
	}
	back, err := s.Events(ctx, "a", 1)
	if err != nil || len(back) != 1 || back[0].Seq != 2 || string(back[0].Data.(json.RawMessage)) != `{"text":"yo"}` {
		t.Fatalf("events %+v %v", back, err)
	}
	if last, _ := s.LastSeq(ctx, "a"); last != 2 {
		t.Fatalf("last seq %d", last)
	}
	if err := s.AddUsage(ctx, "a", 10, 3, 40); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRule(ctx, "/w", "fs.write", "always"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopening applies no migration twice and keeps everything.
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx, "a")
	if err != nil || sess.PromptTokens != 10 || sess.CompletionTokens != 3 || sess.EvalMS != 40 {
		t.Fatalf("session %+v %v", sess, err)
	}
	if r, _ := s.Rule(ctx, "/w", "fs.write"); r != "always" {
		t.Fatalf("rule %q", r)
	}
	if mu, err := s.UsageByModel(ctx); err != nil || len(mu) != 1 || mu[0].Model != "m:latest" || mu[0].PromptTokens != 10 {
		t.Fatalf("usage by model %+v %v", mu, err)
	}
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if evs, _ := s.Events(ctx, "a", 0); len(evs) != 0 {
		t.Fatalf("events survived delete: %d", len(evs))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Create(&migration{Version: 99, Applied: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "newer Shrimp") {
		t.Fatalf("Open = %v", err)
	}
}

// reopenedOld makes a database with a session "old" titled "kept", runs
// queries on it to make it look like an older schema, and opens it again
// (which migrates it).
func reopenedOld(t *testing.T, queries ...string) *Store {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(context.Background(), Session{ID: "old", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if err := s.db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMigratesAnOldDatabase: a database made by schema 3 (no eval_ms column)
// is upgraded in place and keeps its rows.
func TestMigratesAnOldDatabase(t *testing.T) {
	s := reopenedOld(t, "ALTER TABLE sessions DROP COLUMN eval_ms", "DELETE FROM schema_migrations WHERE version = 4")
	ctx := context.Background()
	if err := s.AddUsage(ctx, "old", 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "old")
	if err != nil || got.Title != "kept" || got.EvalMS != 3 {
		t.Fatalf("after migration: %+v %v", got, err)
	}
}

// TestMigratesFileChanges: file changes recorded before folders, shared,
// redoable and the redo's permissions were (schema 20) are kept, with no
// folders, not shared nor redoable, permissions unknown, and new ones
// record theirs.
func TestMigratesFileChanges(t *testing.T) {
	s := reopenedOld(t,
		"INSERT INTO file_changes (session_id, run_seq, call_seq, tool, workspace, path, before, kept, mode, after, folders, created_at) VALUES ('old', 1, 2, 'fs.write', '/w', 'a.txt', '', 0, 0, 'h', '', '2026-12-01 00:00:00')",
		"ALTER TABLE file_changes DROP COLUMN folders", "ALTER TABLE file_changes DROP COLUMN shared", "ALTER TABLE file_changes DROP COLUMN redoable",
		"ALTER TABLE file_changes DROP COLUMN redo_mode", "DELETE FROM schema_migrations WHERE version IN (21, 22, 24, 25)")
	ctx := context.Background()
	if _, err := s.FileChanges().Add(ctx, FileChange{SessionID: "old", RunSeq: 3, CallSeq: 4, Tool: "shell.run", Workspace: "/w", Path: "b/c/d.txt", After: "h", Folders: "b\nb/c", Shared: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.FileChanges().Since(ctx, "old", 1)
	if err != nil || len(rows) != 2 || rows[0].Path != "a.txt" || rows[0].Folders != "" || rows[0].Shared || rows[0].Redoable || rows[1].Folders != "b\nb/c" || !rows[1].Shared {
		t.Fatalf("after migration: %+v %v", rows, err)
	}
	if err := s.FileChanges().MarkUndone(ctx, []int64{rows[1].ID}, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	if err := s.FileChanges().SetRedoMode(ctx, []int64{rows[1].ID}, 0o755); err != nil {
		t.Fatal(err)
	}
	if last, err := s.FileChanges().LastUndone(ctx, "old"); err != nil || len(last) != 1 || !last[0].Redoable || last[0].RedoMode != 0o755 || rows[0].RedoMode != 0 {
		t.Fatalf("the last undo after migration: %+v %v", last, err)
	}
}

// rulesStore opens a store for the rules tests, closed at the test's end,
// and a must that fails the test on an error.
func rulesStore(t *testing.T) (*Store, func(error)) {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRulesPerWorkspace: a rule holds in the workspace it was given in; a
// "never" for every workspace beats a workspace's "always"; revoking takes
// one workspace or all.
func TestRulesPerWorkspace(t *testing.T) {
	s, must := rulesStore(t)
	ctx := context.Background()
	must(s.SetRule(ctx, "/a", "shell.run", "always"))
	must(s.SetRule(ctx, "/b", "shell.run", "always"))
	must(s.SetRule(ctx, "/a", "fs.write", "always"))
	tests := []struct{ ws, tool, want string }{
		{"/a", "shell.run", "always"},
		{"/c", "shell.run", ""},
		{"/a/sub", "shell.run", ""},
		{"/b", "fs.write", ""},
	}
	for _, tt := range tests {
		if got, err := s.Rule(ctx, tt.ws, tt.tool); err != nil || got != tt.want {
			t.Errorf("Rule(%s, %s) = %q, %v; want %q", tt.ws, tt.tool, got, err, tt.want)
		}
	}
	must(s.SetRule(ctx, AnyWorkspace, "fs.write", "never"))
	if got, _ := s.Rule(ctx, "/a", "fs.write"); got != "never" {
		t.Errorf("a never for every workspace lost to a workspace's always: %q", got)
	}
	a := "/a"
	gone, _, err := s.RevokeRules(ctx, "shell.run", &a)
	if err != nil || len(gone) != 1 || gone[0].Workspace != "/a" {
		t.Fatalf("revoke in /a: %+v %v", gone, err)
	}
	if got, _ := s.Rule(ctx, "/b", "shell.run"); got != "always" {
		t.Errorf("revoking in /a removed /b's rule")
	}
	gone, _, err = s.RevokeRules(ctx, "fs.write", nil)
	if err != nil || len(gone) != 2 {
		t.Fatalf("revoke everywhere: %+v %v", gone, err)
	}
	all, err := s.Rules(ctx)
	if err != nil || len(all) != 1 || all[0].Workspace != "/b" || all[0].Tool != "shell.run" {
		t.Fatalf("rules left: %+v %v", all, err)
	}
}

// TestCallRules: an exact call's rule is kept for its workspace and tool,
// and revoking the tool's rules (in its workspace or all) removes it too.
func TestCallRules(t *testing.T) {
	s, must := rulesStore(t)
	ctx := context.Background()
	must(s.SetCallRule(ctx, "/a", "shell.run", "go test ./..."))
	must(s.SetCallRule(ctx, "/a", "shell.run", "go test ./...")) // again: one rule
	must(s.SetCallRule(ctx, "/b", "shell.run", "make"))
	for _, c := range []struct {
		ws, tool, call string
		want           bool
	}{
		{"/a", "shell.run", "go test ./...", true},
		{"/a", "shell.run", "go test", false},
		{"/b", "shell.run", "go test ./...", false},
		{"/a", "mcp.x.run", "go test ./...", false},
	} {
		if got, err := s.CallRule(ctx, c.ws, c.tool, c.call); err != nil || got != c.want {
			t.Errorf("CallRule(%s, %s, %q) = %v, %v", c.ws, c.tool, c.call, got, err)
		}
	}
	if all, err := s.CallRules(ctx); err != nil || len(all) != 2 {
		t.Fatalf("CallRules = %+v, %v", all, err)
	}
	a := "/a"
	if _, calls, err := s.RevokeRules(ctx, "shell.run", &a); err != nil || len(calls) != 1 || calls[0].Call != "go test ./..." {
		t.Fatalf("revoke in /a: %+v %v", calls, err)
	}
	if ok, _ := s.CallRule(ctx, "/b", "shell.run", "make"); !ok {
		t.Error("revoking in /a removed /b's rule")
	}
	if gone, err := s.RevokeCallRule(ctx, "/b", "shell.run", "make"); err != nil || !gone {
		t.Fatalf("RevokeCallRule = %v, %v", gone, err)
	}
	if all, _ := s.CallRules(ctx); len(all) != 0 {
		t.Errorf("rules left: %+v", all)
	}
}

// TestMigratesGlobalRules: the first schema's rules applied in every
// workspace. A "never" keeps doing so; an "always" is dropped, because the
// workspace it was given in is unknown.
func TestMigratesGlobalRules(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{
		"DROP TABLE approval_rules",
		"DELETE FROM schema_migrations WHERE version = 10",
		"INSERT INTO rules (tool, rule, updated_at) VALUES ('shell.run', 'always', '2026-01-01'), ('web.fetch', 'never', '2026-01-01')",
	} {
		if err := s.db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _ := s.Rule(ctx, "/any", "shell.run"); got != "" {
		t.Errorf("an old always rule still applies: %q", got)
	}
	if got, _ := s.Rule(ctx, "/any", "web.fetch"); got != "never" {
		t.Errorf("an old never rule no longer applies: %q", got)
	}
}

// TestModelSettingsByTheirListedName: a model's context size is one
// setting whether it is named "qwen3" (as typed) or "qwen3:latest" (as
// Ollama lists it); settings kept under both names before (schema 25)
// become one, the later one kept.
func TestModelSettingsByTheirListedName(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.SetNumCtx(ctx, "qwen3", 16384); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"qwen3", "qwen3:latest", " qwen3 "} {
		if n, err := s.NumCtx(ctx, name); err != nil || n != 16384 {
			t.Errorf("NumCtx(%q) = %d, %v; want 16384", name, n, err)
		}
	}
	if n, _ := s.NumCtx(ctx, "qwen3:4b"); n != 0 {
		t.Errorf("another tag took the setting: %d", n)
	}
	if err := s.SetNumCtx(ctx, "qwen3:latest", 0); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.NumCtx(ctx, "qwen3"); n != 0 {
		t.Errorf("removed under the listed name, still there under the typed one: %d", n)
	}
	// As an older Shrimp left them: both names, and one only typed.
	old := reopenedOld(t, "DELETE FROM schema_migrations WHERE version = 26",
		"INSERT INTO model_settings (model, num_ctx, updated_at) VALUES ('llama3.2', 4096, '2026-01-01'), ('llama3.2:latest', 32768, '2026-02-01'), ('gemma3', 8192, '2026-01-01'), ('phi4:14b', 2048, '2026-01-01')")
	var names []string
	if err := old.db.Model(&ModelSetting{}).Order("model").Pluck("model", &names).Error; err != nil {
		t.Fatal(err)
	}
	if want := []string{"gemma3:latest", "llama3.2:latest", "phi4:14b"}; !slices.Equal(names, want) {
		t.Errorf("after the migration the settings are kept under %v, want %v", names, want)
	}
	for name, want := range map[string]int{"llama3.2": 32768, "gemma3": 8192, "gemma3:latest": 8192, "phi4:14b": 2048} {
		if n, _ := old.NumCtx(ctx, name); n != want {
			t.Errorf("NumCtx(%q) = %d after the migration, want %d", name, n, want)
		}
	}
}

// TestUsageByListedName: sessions with a model named as typed and as
// listed count as one model's; another tag is another model.
func TestUsageByListedName(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i, m := range []string{"qwen3", "qwen3:4b", "qwen3:latest", "qwen3", "gemma3:1b"} {
		id := fmt.Sprint("s", i)
		if err := s.CreateSession(ctx, Session{ID: id, Model: m}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddUsage(ctx, id, 10, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	mu, err := s.UsageByModel(ctx)
	var got []string
	for _, u := range mu {
		got = append(got, fmt.Sprintf("%s %d %d", u.Model, u.Sessions, u.PromptTokens))
	}
	if want := []string{"gemma3:1b 1 10", "qwen3:4b 1 10", "qwen3:latest 3 30"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("usage by model %v %v, want %v", got, err, want)
	}
}

// TestIntegrityCheck: a sound database passes; one whose pages were
// damaged on disk (and still opens) fails with SQLite's findings.
func TestIntegrityCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := s.SetSetting(ctx, fmt.Sprintf("key-%05d", i), strings.Repeat("v", 200)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("sound database: %v", err)
	}
	s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	s.Close()
	// Scribble over the middle of the file: leaf and index pages of the
	// settings table, not the schema on page 1.
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	junk := make([]byte, 4096*4)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(junk, info.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err = Open(dir)
	if err != nil {
		t.Skipf("the damaged file no longer opens (%v): the doctor reports that case as an open failure (app/cli TestDoctor)", err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Fatalf("damaged database: %v", err)
	}
}

// TestSaveRefusesAStaleProcedure: a process that read a procedure at one
// change number cannot overwrite a change another process made since; it
// gets ErrChanged and the stored row stays as the other left it.
func TestSaveRefusesAStaleProcedure(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	repo := s.Procedures()
	first, err := repo.Save(ctx, Procedure{ID: "p", Trigger: "tidy the downloads folder", Tools: `["fs.list"]`})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		read     int64 // the change number the writer read the row at
		demerits int
		want     error
	}{
		{"the other process adds a demerit", first, 1, nil},
		{"this one, having read it before that", first, 5, ErrChanged},
		{"this one again, having read it since", first + 1, 2, nil},
		{"a new procedure of that id read at nothing", 0, 9, ErrChanged},
	}
	for _, c := range steps {
		_, err := repo.Save(ctx, Procedure{ID: "p", Trigger: "tidy the downloads folder", Tools: `["fs.list"]`, Seq: c.read, Demerits: c.demerits})
		if !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	rows, err := repo.All(ctx)
	if err != nil || len(rows) != 1 || rows[0].Demerits != 2 || rows[0].Seq != first+2 {
		t.Fatalf("stored %+v (%v), want the one procedure with 2 demerits at change %d", rows, err, first+2)
	}
}

// TestRecallLike: the baseline recall matches the request's first 50
// characters inside the trigger's first 50, case aside, most used first;
// never a forgotten procedure or one naming a tool that is not
// registered; LIKE's wildcards in the request are plain characters.
func TestRecallLike(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := []Procedure{
		{ID: "a", Trigger: "Tidy the downloads folder", Tools: `["fs.list"]`, Uses: 1},
		{ID: "b", Trigger: "please tidy the downloads folder now", Tools: `["fs.list"]`, Uses: 5},
		{ID: "c", Trigger: "tidy the downloads folder", Tools: `["fs.list"]`, Forgotten: true},
		{ID: "d", Trigger: "tidy the downloads folder", Tools: `["fs.list"]`, Demerits: 3},
		{ID: "e", Trigger: "tidy the downloads folder", Tools: `["gone.tool"]`},
		{ID: "f", Trigger: "raise prices by 10% in the sheet", Tools: `["sheet.write"]`},
	}
	if err := s.Procedures().AddAll(ctx, rows); err != nil {
		t.Fatal(err)
	}
	has := func(tool string) bool { return tool != "gone.tool" }
	cases := []struct {
		request string
		limit   int
		want    []string
	}{
		{"TIDY the downloads", 5, []string{"b", "a"}},
		{"tidy the downloads", 1, []string{"b"}},
		{"10% in", 5, []string{"f"}},
		{"%", 5, []string{"f"}}, // a literal percent sign, not every trigger
		{"_", 5, nil},
		{"sort my photos", 5, nil},
	}
	for _, c := range cases {
		got, err := s.Procedures().RecallLike(ctx, c.request, 3, has, c.limit)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("RecallLike(%q, %d) = %v, %v; want %v", c.request, c.limit, got, err, c.want)
		}
	}
}

// TestSeqTaken: events under seqs the session already has (another
// process wrote it meanwhile) are not stored over the others, and the
// caller is told.
func TestSeqTaken(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.CreateSession(ctx, Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	ev := func(seq int64, text string) agent.Event {
		return agent.Event{Session: "s", Seq: seq, Type: agent.TypeToken, Time: time.Now(), Data: agent.Delta{Text: text}}
	}
	if err := st.AppendEvents(ctx, []agent.Event{ev(1, "a"), ev(2, "b")}); err != nil {
		t.Fatal(err)
	}
	err = st.AppendEvents(ctx, []agent.Event{ev(2, "other process"), ev(3, "c")})
	if !errors.Is(err, ErrSeqTaken) || !strings.Contains(err.Error(), "1 of 2 events") {
		t.Fatalf("got %v, want ErrSeqTaken for 1 of 2", err)
	}
	got, err := st.Events(ctx, "s", 0)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d events, %v", len(got), err)
	}
	if raw, _ := got[1].RawData(); !strings.Contains(string(raw), `"b"`) {
		t.Errorf("seq 2 was overwritten: %s", raw)
	}
}

// BenchmarkEvents reads a session of 100,000 events (a long session's
// streamed pieces), as opening it in the window does.
func BenchmarkEvents(b *testing.B) {
	st, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.CreateSession(ctx, Session{ID: "s"}); err != nil {
		b.Fatal(err)
	}
	evs := make([]agent.Event, 100_000)
	for i := range evs {
		evs[i] = agent.Event{Session: "s", Seq: int64(i + 1), Type: agent.TypeToken, Time: time.Now(), Data: agent.Delta{Text: "word "}}
	}
	for i := 0; i < len(evs); i += 5000 {
		if err := st.AppendEvents(ctx, evs[i:i+5000]); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		got, err := st.Events(ctx, "s", 0)
		if err != nil || len(got) != len(evs) {
			b.Fatalf("%d events, %v", len(got), err)
		}
	}
}

// TestMarkOutside: the first source a session read from outside is kept,
// in an old database too (migration 16 adds the column).
func TestMarkOutside(t *testing.T) {
	s := reopenedOld(t, "ALTER TABLE sessions DROP COLUMN outside", "DELETE FROM schema_migrations WHERE version = 16")
	ctx := context.Background()
	for _, src := range []string{"https://a.example/", "MCP server b"} {
		if err := s.MarkOutside(ctx, "old", src); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Session(ctx, "old")
	if err != nil || got.Outside != "https://a.example/" || got.Title != "kept" {
		t.Fatalf("after marking: %+v %v", got, err)
	}
}

// TestPinRule: a rule's pin is kept until the rule is given again, in an
// old database too (migration 17 adds the column).
func TestPinRule(t *testing.T) {
	s := reopenedOld(t, "ALTER TABLE approval_rules DROP COLUMN pin", "DELETE FROM schema_migrations WHERE version = 17")
	ctx := context.Background()
	if rule, pin, err := s.RulePin(ctx, "/w", "mcp.t.echo"); rule != "" || pin != "" || err != nil {
		t.Fatalf("no rule: %q %q %v", rule, pin, err)
	}
	if err := s.SetRule(ctx, "/w", "mcp.t.echo", "always"); err != nil {
		t.Fatal(err)
	}
	if err := s.PinRule(ctx, "/w", "mcp.t.echo", "d1"); err != nil {
		t.Fatal(err)
	}
	if rule, pin, err := s.RulePin(ctx, "/w", "mcp.t.echo"); rule != "always" || pin != "d1" || err != nil {
		t.Fatalf("pinned: %q %q %v", rule, pin, err)
	}
	if _, pin, _ := s.RulePin(ctx, "/other", "mcp.t.echo"); pin != "" {
		t.Fatalf("another workspace's pin: %q", pin)
	}
	if err := s.SetRule(ctx, "/w", "mcp.t.echo", "always"); err != nil {
		t.Fatal(err)
	}
	if _, pin, _ := s.RulePin(ctx, "/w", "mcp.t.echo"); pin != "" {
		t.Fatalf("a rule given again kept the old pin %q", pin)
	}
}

// TestMigrationBoundsOldExamples: a procedure learned before examples were
// bounded keeps its 3 MB fs.write no longer: it is cut as learning cuts
// one now, and the rest of the row stays.
func TestMigrationBoundsOldExamples(t *testing.T) {
	big := `{"path":"out.txt","content":"` + strings.Repeat("x", 3<<20) + `"}`
	small := `{"path":"."}`
	s := reopenedOld(t,
		`INSERT INTO procedures (id, "trigger", triggers, tools, examples, sessions, uses, demerits, forgotten, seq, created_at, last_used) VALUES
		 ('p-big', 'write it', '["write it"]', '["fs.list","fs.write"]', '[`+small+`,`+big+`]', '[]', 2, 0, false, 1, '2026-01-01', '2026-01-01'),
		 ('p-odd', 'odd', '["odd"]', '["fs.list"]', 'not json `+strings.Repeat("y", 3000)+`', '[]', 0, 0, false, 2, '2026-01-01', '2026-01-01')`,
		"DELETE FROM schema_migrations WHERE version = 19")
	var rows []Procedure
	if err := s.db.Order("id").Find(&rows).Error; err != nil || len(rows) != 2 {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	var steps []json.RawMessage
	if err := json.Unmarshal([]byte(rows[0].Examples), &steps); err != nil || len(steps) != 2 {
		t.Fatalf("examples %q: %v", rows[0].Examples[:min(200, len(rows[0].Examples))], err)
	}
	if string(steps[0]) != small || len(steps[1]) > jsoncut.Max+100 || !strings.Contains(string(steps[1]), "out.txt") {
		t.Fatalf("bounded examples: %s / %d bytes: %.200s", steps[0], len(steps[1]), steps[1])
	}
	if rows[0].Uses != 2 || rows[0].Trigger != "write it" || !strings.HasPrefix(rows[1].Examples, "not json") {
		t.Fatalf("the rest of the rows changed: %+v / %.40q", rows[0].Uses, rows[1].Examples)
	}
}

// TestShellWatches: During finds the watches under way at some time of a
// span (ended ones that overlap it, and unended ones started by its end),
// not the watch asking; DeleteBefore removes the old ones.
func TestShellWatches(t *testing.T) {
	s, must := rulesStore(t)
	ctx := context.Background()
	r := s.ShellWatches()
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	ids := map[string]int64{}
	for _, w := range []struct {
		name       string
		start, end float64 // end < 0: under way
	}{
		{"before", 0, 1}, {"overlapping the start", 1, 5.5}, {"inside", 6, 7}, {"under way", 8, -1},
		{"after", 20, 21}, {"asking", 5, 10}, {"ending at the start", 2, 5},
	} {
		id, err := r.Begin(ctx, "/w", 1, at(w.start))
		must(err)
		if w.end >= 0 {
			must(r.End(ctx, id, at(w.end)))
		}
		ids[w.name] = id
	}
	got, err := r.During(ctx, at(5), at(10), ids["asking"])
	must(err)
	var names []string
	for _, w := range got {
		for n, id := range ids {
			if id == w.ID {
				names = append(names, n)
			}
		}
	}
	if want := []string{"overlapping the start", "inside", "under way", "ending at the start"}; !sameSet(names, want) {
		t.Errorf("during [5 s, 10 s]: %v, want %v", names, want)
	}
	must(r.DeleteBefore(ctx, at(8)))
	got, err = r.During(ctx, at(0), at(100), 0)
	must(err)
	if len(got) != 2 {
		t.Errorf("after deleting those started before 8 s: %d left, want 2", len(got))
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}

// TestEventsAfter: every session's events in the order they were stored,
// page by page from a position, as the window follows another process;
// deleting the last session's events puts the end before a position
// read earlier (the follower starts again from the end).
func TestEventsAfter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start, err := s.EventsEnd(ctx)
	if err != nil || start != 0 {
		t.Fatalf("an empty store ends at %d (%v)", start, err)
	}
	for _, id := range []string{"a", "b"} {
		if err := s.CreateSession(ctx, Session{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i := range 3 {
		for _, id := range []string{"a", "b"} {
			e := agent.Event{Session: id, Seq: int64(i + 1), Type: agent.TypeToken, Time: time.Now(), Data: map[string]string{"text": fmt.Sprint(i)}}
			if err := s.AppendEvents(ctx, []agent.Event{e}); err != nil {
				t.Fatal(err)
			}
			want = append(want, fmt.Sprintf("%s/%d", id, i+1))
		}
	}
	var got []string
	pos := start
	for page := 0; page < 10; page++ {
		events, next, err := s.EventsAfter(ctx, pos, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			got = append(got, fmt.Sprintf("%s/%d", e.Session, e.Seq))
		}
		if pos = next; len(events) < 4 {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("followed %v, want %v", got, want)
	}
	if end, err := s.EventsEnd(ctx); err != nil || end != pos {
		t.Fatalf("the end is %d, the last followed %d (%v)", end, pos, err)
	}
	if err := s.DeleteSession(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if end, err := s.EventsEnd(ctx); err != nil || end >= pos {
		t.Errorf("after the last session went, the end is %d, not before %d (%v)", end, pos, err)
	}
}

// TestMessageImages: a message's images come back with the history in
// their order; an image sent twice (in two sessions) is kept once, and
// stays while a session holds it.
func TestMessageImages(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, b := []byte("\x89PNG\r\n\x1a\nfirst"), []byte("\xff\xd8\xffsecond")
	for _, id := range []string{"one", "two"} {
		if err := s.CreateSession(ctx, Session{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendMessages(ctx, id, []api.Message{{Role: "user", Content: "look", Images: []api.ImageData{a, b}}, {Role: "assistant", Content: "seen"}}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := s.Messages(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || len(msgs[0].Images) != 2 || !bytes.Equal(msgs[0].Images[0], a) || !bytes.Equal(msgs[0].Images[1], b) || len(msgs[1].Images) != 0 {
		t.Fatalf("history %+v, want the user's message with a then b", msgs)
	}
	// The text alone, for a transcript: the same messages, no image data read.
	if text, at, err := s.TextMessages(ctx, "one"); err != nil || len(text) != 2 || text[0].Content != "look" || text[0].Images != nil || text[1].Content != "seen" || len(at) != 2 || at[0].IsZero() || at[1].Before(at[0]) {
		t.Fatalf("text of the history %+v %v", text, err)
	}
	var rows int64
	s.db.Model(&Image{}).Count(&rows)
	if rows != 2 {
		t.Fatalf("%d image rows for 2 images sent twice, want 2", rows)
	}
	if err := s.DeleteSession(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Messages(ctx, "two"); len(msgs) != 2 || len(msgs[0].Images) != 2 {
		t.Fatalf("deleting one session took the other's images: %+v", msgs)
	}
	if err := s.DeleteSession(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	if s.db.Model(&Image{}).Count(&rows); rows != 0 {
		t.Fatalf("%d images left after every session holding them was deleted", rows)
	}
}

// BenchmarkMessagesWithImages: a session's history read before each of
// its requests, when four of its requests carried a 5 MB photo each
// (what a session about pictures holds): each request reads them again,
// as Ollama is sent them again.
func BenchmarkMessagesWithImages(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "p", Title: "photos"}); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		m := api.Message{Role: "user", Content: fmt.Sprintf("request %d", i)}
		if i%5 == 0 {
			photo := make([]byte, 5<<20)
			photo[0] = byte(i) // four different photos
			m.Images = []api.ImageData{photo}
		}
		if err := s.AppendMessages(ctx, "p", []api.Message{m, {Role: "assistant", Content: "seen"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		msgs, err := s.Messages(ctx, "p")
		if err != nil || len(msgs) != 40 {
			b.Fatal(len(msgs), err)
		}
	}
}

// TestReplaceRuns: replacing a run takes its messages and every later one
// out of the history (the record keeps them, and the token counts follow
// the history); a run whose messages an older Shrimp wrote (schema 29:
// no run column) cannot be replaced, and says what to do instead.
func TestReplaceRuns(t *testing.T) {
	s := reopenedOld(t,
		"INSERT INTO messages (session_id, role, content, tokens, created_at) VALUES ('old', 'user', 'before the upgrade', 3, '2026-12-01 00:00:00')",
		"DROP INDEX IF EXISTS idx_messages_session_run",
		"ALTER TABLE messages DROP COLUMN run", "ALTER TABLE messages DROP COLUMN replaced",
		"DELETE FROM schema_migrations WHERE version = 30")
	ctx := context.Background()
	msg := func(role, content string) api.Message { return api.Message{Role: role, Content: content} }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AppendRunMessages(ctx, "old", 5, []api.Message{msg("user", "first"), msg("assistant", "one")}))
	must(s.AppendMessages(ctx, "old", []api.Message{msg("user", "[a note]")}))
	must(s.AppendRunMessages(ctx, "old", 9, []api.Message{msg("user", "second"), msg("assistant", "two")}))
	contents := func() []string {
		t.Helper()
		got, err := s.Messages(ctx, "old")
		must(err)
		return lo.Map(got, func(m api.Message, _ int) string { return m.Content })
	}
	if _, err := s.ReplaceRuns(ctx, "old", 1); !errors.Is(err, ErrNotReplaceable) || !strings.Contains(err.Error(), "as a new request") {
		t.Errorf("replacing a run an older Shrimp wrote: %v", err)
	}
	n, err := s.ReplaceRuns(ctx, "old", 5)
	must(err)
	if want := []string{"before the upgrade"}; n != 5 || !slices.Equal(contents(), want) {
		t.Errorf("after replacing run 5: %d replaced, history %q", n, contents())
	}
	if tokens, err := s.MessageTokens(ctx, "old"); err != nil || len(tokens) != 1 || tokens[0] != 3 {
		t.Errorf("the history's token counts: %v %v", tokens, err)
	}
	if _, err := s.ReplaceRuns(ctx, "old", 9); !errors.Is(err, ErrNotReplaceable) {
		t.Errorf("replacing a replaced run: %v", err)
	}
	// Kept in the record (a session's search still finds them).
	var all int64
	must(s.db.Model(&Message{}).Where("session_id = ?", "old").Count(&all).Error)
	if all != 6 {
		t.Errorf("%d messages kept, want 6", all)
	}
	must(s.AppendRunMessages(ctx, "old", 12, []api.Message{msg("user", "second, again")}))
	if want := []string{"before the upgrade", "second, again"}; !slices.Equal(contents(), want) {
		t.Errorf("after the retry: %q", contents())
	}
}
