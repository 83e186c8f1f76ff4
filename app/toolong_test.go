package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/prompt"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// tooLongReply is what Ollama v0.24.0 answers a chat whose prompt does
// not fit num_ctx when the request says truncate false (its runners'
// errorInputTooLong, sent as HTTP 400 before any content).
var tooLongReply = ollamatest.Reply{Status: 400, Error: "the input length exceeds the context length"}

// counted is a scripted model's own count of a request's tokens:
// characters (the tools' JSON's too) over two, twice Shrimp's estimate
// for plain words.
func counted(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	tools, _ := json.Marshal(req.Tools)
	return (n + len(tools)) / 2
}

// TestPromptTooLongIsFittedAgain: a model whose tokenizer counts the
// prompt at twice Shrimp's estimate (a script, a language, a kind of
// text the estimate does not know) is sent a prompt that does not fit.
// Requests say truncate false, so Ollama refuses it instead of dropping
// its oldest messages unseen; Shrimp compacts further and asks again,
// and the answer comes, the user told. A prompt that compacting no longer
// shrinks (or after a few rounds) is sent for Ollama to cut, as before,
// the user told what the model does not see and what to do.
func TestPromptTooLongIsFittedAgain(t *testing.T) {
	const numCtx = 5000
	// reader is a model that reads the file each request names and says
	// so, refusing (in refusal's words) a prompt asked not to be cut that
	// it counts past numCtx.
	reader := func(refusal func(api.ChatRequest) ollamatest.Reply) func(api.ChatRequest) ollamatest.Reply {
		return func(req api.ChatRequest) ollamatest.Reply {
			last := req.Messages[len(req.Messages)-1]
			switch {
			case len(req.Tools) == 0:
				return ollamatest.Text("The user had a.txt read.") // a summary
			case req.Truncate != nil && !*req.Truncate && counted(req) > numCtx:
				return refusal(req)
			case last.Role == "user":
				return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": strings.Fields(last.Content)[1]}})
			}
			return ollamatest.Text("Read it.")
		}
	}
	ws := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat("plain words in a long note; ", 180)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name    string
		respond func(api.ChatRequest) ollamatest.Reply
		fails   bool
	}{
		{"fits once compacted", reader(func(api.ChatRequest) ollamatest.Reply { return tooLongReply }), false},
		{"fits once compacted, in llama-server's words", reader(func(req api.ChatRequest) ollamatest.Reply {
			return ollamatest.Reply{Status: 400, Error: fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens)", counted(req), numCtx)}
		}), false},
		{"never fits", func(req api.ChatRequest) ollamatest.Reply {
			switch {
			case len(req.Tools) == 0:
				return ollamatest.Text("A summary.")
			case req.Truncate == nil: // Ollama cuts the prompt, and the model answers
				return ollamatest.Text("Read it.")
			}
			return tooLongReply
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: tt.respond})
			a := openApp(t, t.TempDir(), srv.URL)
			if err := a.Store.SetNumCtx(context.Background(), "m", numCtx); err != nil {
				t.Fatal(err)
			}
			var (
				events []agent.Event
				err    error
				id     string
			)
			// Two requests of one session: the first's read does not fit
			// by the model's count, the second carries it in its history.
			for _, text := range []string{"read a.txt", "read b.txt"} {
				var got []agent.Event
				id, got, err = ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Approve: approval.ModeAll, Text: text})
				events = append(events, got...)
				if err != nil || tt.fails {
					break
				}
			}
			var warned, cut int
			var answer string
			for _, e := range events {
				if d, ok := e.Data.(agent.Error); ok && strings.Contains(d.Message, "compacted the conversation further") {
					warned++
				}
				if d, ok := e.Data.(agent.Error); ok && strings.Contains(d.Message, "Ollama cuts it to the window") && strings.Contains(d.Message, "raise the context size") {
					cut++
				}
				if d, ok := e.Data.(agent.Response); ok {
					answer = d.Text
				}
			}
			var chats, cuttable int
			for _, r := range srv.Requests() {
				if r.Chat.Model == "" || len(r.Chat.Tools) == 0 {
					continue
				}
				chats++
				if r.Chat.Truncate == nil || *r.Chat.Truncate {
					cuttable++
				}
			}
			switch {
			case err != nil || answer != "Read it.":
				t.Fatalf("err %v, answer %q; want the answer", err, answer)
			case !tt.fails && (warned == 0 || cut != 0 || cuttable != 0):
				t.Fatalf("%d warnings, %d of the prompt cut, %d requests Ollama may cut; want it fitted again, told, never cut", warned, cut, cuttable)
			case tt.fails && (warned != 1 || cut != 1 || cuttable != 1 || chats != 3):
				// Nothing here can be compacted (the prompt is the request and
				// the tools): fitted once more, it is the same prompt, so it
				// is sent to be cut, not refused twice more.
				t.Fatalf("%d warnings of fitting again, %d of a cut, %d requests Ollama may cut of %d; want one round of fitting, then one request cut, told",
					warned, cut, cuttable, chats)
			}
		})
	}
}

// TestRefusedInOtherWords: a later Ollama that words a prompt too long in
// words Shrimp does not know (any HTTP 400 to a request that asked it not
// to cut) is asked once more letting it cut, as before; the answer comes.
func TestRefusedInOtherWords(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if req.Truncate != nil && !*req.Truncate {
			return ollamatest.Reply{Status: 400, Error: "prompt of 9000 tokens is over the window"}
		}
		return ollamatest.Text("Hello.")
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Approve: approval.ModeAll, Text: "hello"})
	var answer string
	for _, e := range events {
		if d, ok := e.Data.(agent.Response); ok {
			answer = d.Text
		}
	}
	if err != nil || answer != "Hello." || len(srv.Requests()) < 2 {
		t.Fatalf("err %v, answer %q after %d requests; want the answer, asked again", err, answer, len(srv.Requests()))
	}
}

// TestSideRequestsAreNotCutUnseen: a prompt hook's question and an MCP
// server's sampling go to Ollama with truncate false too. A question the
// model counts past num_ctx has its middle cut harder and is asked again,
// its start (the hook's condition) and end kept; a server's conversation
// that does not fit is refused with the reason, not answered without its
// start; a refusal in other words is asked once more, letting Ollama cut.
func TestSideRequestsAreNotCutUnseen(t *testing.T) {
	const numCtx = 1000
	var sent []api.ChatRequest
	refusing := func(refusal ollamatest.Reply, answer string) func(api.ChatRequest) ollamatest.Reply {
		return func(req api.ChatRequest) ollamatest.Reply {
			sent = append(sent, req)
			if req.Truncate != nil && !*req.Truncate && counted(req) > numCtx {
				return refusal
			}
			return ollamatest.Text(answer)
		}
	}
	other := ollamatest.Reply{Status: 400, Error: "prompt too big for this model"}
	question := "Is the file safe to write? " + strings.Repeat("plain words ", 230) + "END"
	for _, tt := range []struct {
		name    string
		refusal ollamatest.Reply
		cut     bool // the answered request let Ollama cut
	}{
		{"refused as too long", tooLongReply, false},
		{"refused in other words", other, true},
	} {
		t.Run("judge/"+tt.name, func(t *testing.T) {
			sent = nil
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: refusing(tt.refusal, `{"ok": true, "reason": ""}`)})
			a := openApp(t, t.TempDir(), srv.URL)
			answer, err := a.judge(context.Background(), "m", numCtx, nil, nil)(context.Background(), "prompt hook p1", question)
			if err != nil || !strings.Contains(answer, `"ok": true`) {
				t.Fatalf("answer %q, %v", answer, err)
			}
			if len(sent) != 2 || sent[0].Truncate == nil || *sent[0].Truncate {
				t.Fatalf("%d requests; the first's truncate %v", len(sent), sent[0].Truncate)
			}
			last := sent[len(sent)-1]
			q := last.Messages[1].Content
			if (last.Truncate == nil) != tt.cut || !strings.HasPrefix(q, "Is the file safe to write? ") || !strings.HasSuffix(q, "END") {
				t.Fatalf("answered: truncate %v, question %.80q … %.40q", last.Truncate, q, q[max(0, len(q)-40):])
			}
			if !tt.cut && !strings.Contains(q, "bytes left out") {
				t.Fatalf("the question asked again is not shorter: %d bytes", len(q))
			}
		})
		t.Run("sampling/"+tt.name, func(t *testing.T) {
			sent = nil
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: refusing(tt.refusal, "A summary.")})
			a := openApp(t, t.TempDir(), srv.URL)
			emit := func(context.Context, agent.Type, any) error { return nil }
			res, err := a.sampler(approval.ModeAll, false, "m", nil, numCtx, nil, emit)(context.Background(), tool.SampleRequest{
				Server: "t", MaxTokens: 64, Messages: []tool.SampleMessage{{Role: "user", Text: question}},
			})
			if tt.cut {
				if err != nil || res.Text != "A summary." || len(sent) != 2 || sent[1].Truncate != nil {
					t.Fatalf("%+v, %v after %d requests", res, err, len(sent))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "longer than m's context window (num_ctx 1000)") || len(sent) != 1 {
				t.Fatalf("%+v, %v after %d requests", res, err, len(sent))
			}
		})
	}
}

// TestLongRepliesGetRoom: a reply that fills the context window past the
// prompt (a thinking model's long thinking) makes Ollama shift the window
// mid-reply, dropping the conversation's start with no word: the user is
// told, and the run's later prompts are fitted to leave that reply's
// length free.
func TestLongRepliesGetRoom(t *testing.T) {
	const numCtx, reply = 4096, 1500
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("plain words in a long note; ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	read := ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "big.txt"}})
	read.PromptTokens, read.EvalTokens = 3000, reply // 4,500 > num_ctx: shifted
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{read, ollamatest.Text("Read it.")}})
	a := openApp(t, t.TempDir(), srv.URL)
	if err := a.Store.SetNumCtx(context.Background(), "m", numCtx); err != nil {
		t.Fatal(err)
	}
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "read big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	told := 0
	var compacted *prompt.Compacted
	for _, e := range events {
		switch d := e.Data.(type) {
		case agent.Error:
			if strings.Contains(d.Message, "reply outgrew the context window (3000 tokens of prompt and 1500 of reply, num_ctx 4096)") {
				told++
			}
		case prompt.Compacted:
			compacted = &d
		}
	}
	if told != 1 {
		t.Fatalf("told %d times", told)
	}
	if compacted == nil || compacted.Budget+reply > numCtx {
		t.Fatalf("the second prompt was fitted into %+v, leaving less than the %d-token reply", compacted, reply)
	}
}
