package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestConversationRetry runs the real binary's conversation: /retry asks
// the last request again, having asked whether to put back the file it
// changed; /edit TEXT sends TEXT in its place; the model is sent neither
// replaced attempt, and the answers say which attempt they answer.
func TestConversationRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	keyboard, tty := openPTY(t)
	attempts := map[string]int{}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			attempts[last.Content]++
			if last.Content == "tidy the notes" && attempts[last.Content] == 1 {
				return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "gone\n"}})
			}
		}
		var users []string
		for _, m := range req.Messages {
			if m.Role == "user" {
				users = append(users, m.Content)
			}
		}
		return ollamatest.Text("Answer to: " + strings.Join(users, " | "))
	}})
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := newShown(), newShown()
	_, exited := startChat(t, bin, t.TempDir(), srv.URL, ws, tty, stdout, stderr)
	typeLine := typer(t, keyboard)
	stderr.await(t, "› ", 1)
	typeLine("/retry")
	stderr.await(t, "No session yet: nothing to retry.", 1)
	typeLine("/approve all")
	stderr.await(t, "Approvals: all from the next request on", 1)
	typeLine("say hi")
	stdout.await(t, "Answer to: say hi", 1)
	typeLine("tidy the notes")
	stdout.await(t, "wrote 5 bytes to notes.txt", 1)
	stdout.await(t, "Answer to: say hi | tidy the notes", 1)

	// /retry: asked about the file, put back, asked again.
	typeLine("/retry")
	stderr.await(t, "Put them back before it runs again? [Y/n] ", 1)
	typeLine("")
	stderr.await(t, "Asking again in place of the last request (the model no longer sees it): tidy the notes", 1)
	stdout.await(t, "Answer to: say hi | tidy the notes", 2)
	if b, _ := os.ReadFile(notes); string(b) != "mine\n" {
		t.Errorf("notes.txt after the retry: %q", b)
	}

	// /edit alone, without a line editor, says how; /edit TEXT replaces.
	typeLine("/edit")
	stderr.await(t, "The last request was: tidy the notes", 1)
	typeLine("/edit tidy the notes, keep the first line")
	stdout.await(t, "Answer to: say hi | tidy the notes, keep the first line", 1)

	// The next request goes on from the edit.
	typeLine("thanks")
	stdout.await(t, "Answer to: say hi | tidy the notes, keep the first line | thanks", 1)
	typeLine("/exit")
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("/exit did not end the conversation; stderr:\n%s", stderr.String())
	}
	// The retry was sent the request once, the tool's attempt not at all.
	if strings.Contains(stdout.String(), "tidy the notes | tidy the notes") {
		t.Errorf("a retry was sent the attempt it replaced:\n%s", stdout.String())
	}
	for _, r := range srv.Requests() {
		if m := r.Chat.Messages; m[len(m)-1].Content == "thanks" && slices.ContainsFunc(m, func(m api.Message) bool { return m.Role == "tool" }) {
			t.Errorf("the request after the retries was sent a replaced attempt's call: %+v", m)
		}
	}
}
