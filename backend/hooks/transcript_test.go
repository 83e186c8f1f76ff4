package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// TestTranscripts: a session's history as Claude Code's transcript, in
// its shapes (user text, assistant text and tool_use with Claude Code's
// names and inputs, tool_result, each line chained to the one before),
// appended to as the history grows, written again when it does not, and
// removed with the session.
func TestTranscripts(t *testing.T) {
	var history []api.Message
	args := api.NewToolCallFunctionArguments()
	args.Set("command", "go test ./...")
	history = append(history,
		api.Message{Role: "user", Content: "make the tests pass"},
		api.Message{Role: "assistant", Content: "Running them.", ToolCalls: []api.ToolCall{{ID: "call_1", Function: api.ToolCallFunction{Name: "shell.run", Arguments: args}}}},
		api.Message{Role: "tool", Content: "error: exit status 1\nFAIL TestParse", ToolName: "shell.run", ToolCallID: "call_1"},
		api.Message{Role: "assistant", Content: "Fixed the parser.", Thinking: "The date check is off by one."},
	)
	t0 := time.Date(2026, 12, 6, 11, 0, 0, 0, time.FixedZone("CET", 3600))
	at := []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(3500 * time.Millisecond)}
	tr := &Transcripts{Dir: filepath.Join(t.TempDir(), "transcripts"), Messages: func(context.Context, string) ([]api.Message, []time.Time, error) {
		return history, at, nil
	}}
	ctx := context.Background()
	path, err := tr.Path(ctx, "s1", "/w")
	if err != nil || path != filepath.Join(tr.Dir, "s1.jsonl") {
		t.Fatalf("path %q %v", path, err)
	}
	type line struct {
		Parent  *string `json:"parentUuid"`
		UUID    string  `json:"uuid"`
		Type    string  `json:"type"`
		Session string  `json:"sessionId"`
		CWD     string  `json:"cwd"`
		Time    string  `json:"timestamp"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	read := func() []line {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []line
		for l := range strings.Lines(string(b)) {
			var v line
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			out = append(out, v)
		}
		return out
	}
	lines := read()
	if len(lines) != 4 || lines[0].Parent != nil || *lines[1].Parent != lines[0].UUID || lines[0].Session != "s1" || lines[0].CWD != "/w" {
		t.Fatalf("lines %+v", lines)
	}
	// Stamped as Claude Code stamps its lines: UTC, milliseconds.
	if lines[0].Time != "2026-12-06T10:00:00.000Z" || lines[3].Time != "2026-12-06T10:00:03.500Z" {
		t.Fatalf("timestamps %q, %q", lines[0].Time, lines[3].Time)
	}
	wantContent := []string{
		`"make the tests pass"`,
		`[{"text":"Running them.","type":"text"},{"id":"call_1","input":{"command":"go test ./..."},"name":"Bash","type":"tool_use"}]`,
		`[{"content":"exit status 1\nFAIL TestParse","is_error":true,"tool_use_id":"call_1","type":"tool_result"}]`,
		`[{"thinking":"The date check is off by one.","type":"thinking"},{"text":"Fixed the parser.","type":"text"}]`,
	}
	for i, l := range lines {
		if got := string(l.Message.Content); got != wantContent[i] || (l.Type == "assistant") != (l.Message.Role == "assistant") {
			t.Errorf("line %d: %s %s, want %s", i, l.Type, got, wantContent[i])
		}
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode())
	}
	// The history grows: the file is appended to, its lines kept.
	history = append(history, api.Message{Role: "user", Content: "thanks"})
	if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
		t.Fatal(err)
	}
	if again := read(); len(again) != 5 || again[3].UUID != lines[3].UUID || *again[4].Parent != lines[3].UUID || again[4].Time != "" {
		t.Fatalf("after growing: %+v", again)
	}
	// A retried request takes messages out of the history: written again.
	history = history[:2]
	if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
		t.Fatal(err)
	}
	if again := read(); len(again) != 2 {
		t.Fatalf("after a retry: %d lines", len(again))
	}
	// Changed by someone else meanwhile: written again, not appended to.
	if err := os.WriteFile(path, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	history = append(history, api.Message{Role: "tool", Content: "ok", ToolCallID: "call_1"})
	if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
		t.Fatal(err)
	}
	if again := read(); len(again) != 3 {
		t.Fatalf("after a change from outside: %d lines", len(again))
	}
	// No session yet, or an id that is no file name: no transcript.
	if p, err := tr.Path(ctx, "", "/w"); p != "" || err != nil {
		t.Fatalf("no session: %q %v", p, err)
	}
	if p, err := tr.Path(ctx, "../etc", "/w"); p != "" || err == nil {
		t.Fatalf("a path for a session id: %q %v", p, err)
	}
	if err := tr.Forget("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the transcript is still there: %v", err)
	}
	if err := tr.Forget("s1"); err != nil {
		t.Fatalf("forget twice: %v", err)
	}
}

// BenchmarkTranscript measures what a Claude Code hook's transcript_path
// costs a call in a session of 1,000 messages: the whole file written
// (the first hook in a process, or after a retry), and one message
// appended (each later call).
func BenchmarkTranscript(b *testing.B) {
	history := make([]api.Message, 0, 1001)
	for i := range 250 {
		args := api.NewToolCallFunctionArguments()
		args.Set("path", fmt.Sprintf("src/file%d.go", i))
		history = append(history,
			api.Message{Role: "user", Content: strings.Repeat("please look at the parser again ", 4)},
			api.Message{Role: "assistant", Content: "Reading it.", ToolCalls: []api.ToolCall{{ID: fmt.Sprint("call_", i), Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}},
			api.Message{Role: "tool", Content: strings.Repeat("func parse(s string) (time.Time, error) {}\n", 20), ToolCallID: fmt.Sprint("call_", i)},
			api.Message{Role: "assistant", Content: strings.Repeat("The parser reads the date in two steps. ", 6)},
		)
	}
	ctx := context.Background()
	b.Run("written whole", func(b *testing.B) {
		tr := &Transcripts{Dir: b.TempDir(), Messages: func(context.Context, string) ([]api.Message, []time.Time, error) { return history, nil, nil }}
		for b.Loop() {
			tr.written = nil // as a new process
			if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one appended", func(b *testing.B) {
		n := 999
		tr := &Transcripts{Dir: b.TempDir(), Messages: func(context.Context, string) ([]api.Message, []time.Time, error) { return history[:n], nil, nil }}
		for b.Loop() {
			b.StopTimer() // the file holds 999 messages, as this process wrote it
			n, tr.written = 999, nil
			if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
				b.Fatal(err)
			}
			n = 1000
			b.StartTimer()
			if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A guard on every call: the transcript ends with the call, then
	// grows past it.
	b.Run("one appended after a pending call", func(b *testing.B) {
		n := 999
		tr := &Transcripts{Dir: b.TempDir(), Messages: func(context.Context, string) ([]api.Message, []time.Time, error) { return history[:n], nil, nil }}
		call := pendingCall(ToolCall{ID: "call_x", Tool: "fs.read", Arguments: json.RawMessage(`{"path": "a.go"}`)})
		for b.Loop() {
			b.StopTimer()
			n, tr.written = 999, nil
			if _, err := tr.Path(ctx, "s1", "/w", call); err != nil {
				b.Fatal(err)
			}
			n = 1000
			b.StartTimer()
			if _, err := tr.Path(ctx, "s1", "/w", call); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTranscriptPendingCall: a hook about a call reads the transcript
// ending with that call (its assistant message is stored only once all
// its calls ran), and the next transcript is written again without it.
func TestTranscriptPendingCall(t *testing.T) {
	history := []api.Message{{Role: "user", Content: "list the files"}}
	tr := &Transcripts{Dir: t.TempDir(), Messages: func(context.Context, string) ([]api.Message, []time.Time, error) { return history, nil, nil }}
	ctx := context.Background()
	call := pendingCall(ToolCall{ID: "call_7", Tool: "fs.list", Arguments: json.RawMessage(`{"path": "."}`)})
	path, err := tr.Path(ctx, "s1", "/w", call)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	lines := read()
	if len(lines) != 2 || !strings.Contains(lines[1], `"type":"tool_use"`) || !strings.Contains(lines[1], `"id":"call_7"`) || !strings.Contains(lines[1], `"name":"LS"`) || !strings.Contains(lines[1], `"timestamp":"`) {
		t.Fatalf("with the pending call: %q", lines)
	}
	// The call ran: its message and result are in the history now. The
	// pending line is taken off and the file grows from there, not
	// written whole (a mark made in its first line, same size, stays).
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "list the files", "LIST THE FILES", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	history = append(history, api.Message{Role: "assistant", ToolCalls: []api.ToolCall{call}}, api.Message{Role: "tool", Content: "a.txt", ToolCallID: "call_7"})
	if _, err := tr.Path(ctx, "s1", "/w"); err != nil {
		t.Fatal(err)
	}
	again := read()
	if len(again) != 3 || strings.Count(strings.Join(again, "\n"), `"id":"call_7"`) != 1 || !strings.Contains(again[2], `"tool_result"`) || !strings.Contains(again[0], "LIST THE FILES") {
		t.Fatalf("after the call: %q", again)
	}
	// Two pending calls in a row (a guard on each): the first one's line
	// does not stay.
	for _, id := range []string{"call_8", "call_9"} {
		if _, err := tr.Path(ctx, "s1", "/w", pendingCall(ToolCall{ID: id, Tool: "fs.read", Arguments: json.RawMessage(`{"path": "a.txt"}`)})); err != nil {
			t.Fatal(err)
		}
	}
	if again := read(); len(again) != 4 || strings.Contains(strings.Join(again, "\n"), "call_8") || !strings.Contains(again[3], "call_9") {
		t.Fatalf("after two pending calls: %q", again)
	}
}
