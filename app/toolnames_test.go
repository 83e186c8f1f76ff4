package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestMisspelledToolNames: a model that writes fs_read (OpenAI's names
// allow no dots), natively or in a text call, or fs.list<|constrain|>json
// (gpt-oss), or bash (Claude Code's Bash), gets fs.read, fs.list or
// shell.run, and a line
// number written as a string is read as the number, and a path written as
// filePath (GLM) is the path; the timeline,
// the approval mode and the rules see the registered name, so a "never"
// for shell.run holds for Shell_Run too, and the model's next turn shows
// its call under the name that ran.
func TestMisspelledToolNames(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs_read", Args: map[string]any{"filePath": "notes.txt", "offset": "1"}}), // GLM's name for path
		ollamatest.Text(`<tool_call>{"name": "functions.fs_list", "arguments": {"path": "."}}</tool_call>`),
		// gpt-oss running its header's tokens into the name.
		ollamatest.Tools(ollamatest.Call{Name: "functions.fs.list<|constrain|>json", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "Shell_Run", Args: map[string]any{"command": "touch ran"}}),
		// Claude Code's name for it (qwen-code #2012: "bash").
		ollamatest.Tools(ollamatest.Call{Name: "bash", Args: map[string]any{"command": "touch ran", "description": "Creates the file ran"}}),
		ollamatest.Text(`<tool_call>{"name": "Bash", "arguments": {"command": "touch ran too"}}</tool_call>`), // and written as text
		ollamatest.Text("Done."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	if err := a.Store.SetRule(context.Background(), WorkspaceKey(ws), "shell.run", approval.RuleNever); err != nil {
		t.Fatal(err)
	}
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeRead, Text: "read the notes"})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	var results []agent.ToolResult
	for _, e := range events {
		switch d := e.Data.(type) {
		case agent.ToolCall:
			calls = append(calls, d.Name)
		case agent.ToolResult:
			results = append(results, d)
		}
	}
	if strings.Join(calls, " ") != "fs.read fs.list fs.list shell.run shell.run shell.run" || len(results) != 6 {
		t.Fatalf("calls %q, results %+v", calls, results)
	}
	if results[0].Error != "" || !strings.HasPrefix(results[0].Output, "the notes") || results[1].Error != "" || !strings.Contains(results[1].Output, "notes.txt") || results[2].Error != "" || !strings.Contains(results[2].Output, "notes.txt") {
		t.Fatalf("read-only calls under their registered names: %+v", results[:3])
	}
	for _, r := range results[3:] {
		if !r.Denied || !strings.Contains(r.Error, "never allows shell.run") {
			t.Fatalf("the never rule for shell.run: %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Fatal("the command ran")
	}
	msgs := srv.Requests()[1].Chat.Messages
	var named []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			named = append(named, c.Function.Name)
		}
	}
	if strings.Join(named, " ") != "fs.read" {
		t.Fatalf("the model's next turn shows its call as %q", named)
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if v, _ := c.Function.Arguments.Get("offset"); v != float64(1) {
				t.Fatalf("the call the model is shown: %s", c.Function.Arguments.String())
			}
		}
	}
}

// TestOtherAgentsArguments: a model trained on Claude Code calls its Edit
// with file_path, old_string and new_string, and its Bash with a
// description of the command for the user and a timeout in milliseconds:
// the edit is made and the command runs, and the model's next turn shows
// the calls as they ran.
func TestOtherAgentsArguments(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "Edit", Args: map[string]any{"file_path": "notes.txt", "old_string": "old", "new_string": "new"}}),
		ollamatest.Tools(ollamatest.Call{Name: "Bash", Args: map[string]any{"command": "touch ran", "description": "Creates the file ran", "timeout": 60000}}),
		ollamatest.Text("Done."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "update the notes"})
	if err != nil {
		t.Fatal(err)
	}
	results := toolResults(events)
	if len(results) != 2 || results[0].Name != "fs.edit" || results[0].Error != "" || results[1].Name != "shell.run" || results[1].Error != "" {
		t.Fatalf("results %+v", results)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "the new notes\n" {
		t.Errorf("notes.txt holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	msgs := srv.Requests()[2].Chat.Messages
	var shown []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			shown = append(shown, c.Function.Name+" "+c.Function.Arguments.String())
		}
	}
	if want := []string{`fs.edit {"path":"notes.txt","new":"new","old":"old"}`, `shell.run {"command":"touch ran","timeout":60}`}; !slices.Equal(shown, want) {
		t.Errorf("the model is shown %q, want %q", shown, want)
	}
}

// TestThinkingInTheContent: a reasoning model whose template leaves its
// thinking block in the content (an older Ollama template, a GGUF matched
// to a generic one), in its family's tags, has it shown as thinking, not
// as the answer, and a call it only considered there is not run.
func TestThinkingInTheContent(t *testing.T) {
	for _, tt := range []struct{ family, reply string }{
		{"qwen3", "<think>\nI could run <tool_call>{\"name\": \"shell.run\", \"arguments\": {\"command\": \"touch considered\"}}</tool_call> but no.\n</think>\n\nNothing to run: 2 + 2 = 4."},
		{"gemma4", "<|channel>thought\nI could run <|tool_call>call:shell.run{command:<|\"|>touch considered<|\"|>}<tool_call|> but no.<channel|>Nothing to run: 2 + 2 = 4."},
		{"magistral", "[THINK]I could run [TOOL_CALLS]shell.run[ARGS]{\"command\": \"touch considered\"} but no.[/THINK]Nothing to run: 2 + 2 = 4."},
		{"cohere", "<|START_THINKING|>I could run <|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"shell.run\", \"parameters\": {\"command\": \"touch considered\"}}]<|END_ACTION|> but no.<|END_THINKING|><|START_RESPONSE|>Nothing to run: 2 + 2 = 4.<|END_RESPONSE|>"},
		{"seed-oss", "<seed:think>I could run <seed:tool_call><function=shell.run><parameter=command>touch considered</parameter></function></seed:tool_call> but no.</seed:think>Nothing to run: 2 + 2 = 4."},
		{"gpt-oss", "<|channel|>analysis<|message|>I could run <tool_call>{\"name\": \"shell.run\", \"arguments\": {\"command\": \"touch considered\"}}</tool_call> but no.<|end|><|start|>assistant<|channel|>final<|message|>Nothing to run: 2 + 2 = 4.<|return|>"},
	} {
		t.Run(tt.family, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text(tt.reply)}})
			a := openApp(t, t.TempDir(), srv.URL)
			ws := t.TempDir()
			_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what is 2 + 2"})
			if err != nil {
				t.Fatal(err)
			}
			thinking, answer := thinkingAndAnswer(t, events)
			if answer != "Nothing to run: 2 + 2 = 4." || !strings.Contains(thinking, "but no.") {
				t.Fatalf("answer %q, thinking %q", answer, thinking)
			}
			if _, err := os.Stat(filepath.Join(ws, "considered")); err == nil {
				t.Fatal("the considered command ran")
			}
		})
	}
}

// TestThinkingWithoutItsOpeningTag: a model that writes its thinking
// without the tag that opens it, only </think> after it (a template that
// opens the block in the prompt; a fine-tune made without it: ollama
// #10921, #12736), has a call it wrote there not made and the user told;
// from its next answer on, what comes before the tag is its thinking.
func TestThinkingWithoutItsOpeningTag(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("Okay, I could run <tool_call>{\"name\": \"shell.run\", \"arguments\": {\"command\": \"touch considered\"}}</tool_call> but no.\n</think>\n\nNothing to run: 2 + 2 = 4."),
		ollamatest.Text("Okay, 2 + 3 is simple.\n</think>\n\n5."),
		ollamatest.Text("Okay, 3 + 3 then.\n</think>\n\n6."),
		{Thinking: []string{"Seven, ", "plainly."}, Text: []string{"7."}},
		ollamatest.Text("Plain answer."),
	}})
	data := t.TempDir()
	a := openApp(t, data, srv.URL)
	ws := t.TempDir()
	// The warning is the app's (the model client's notice), stored with
	// the session.
	told := func(id string) bool {
		return slices.ContainsFunc(storedEvents(t, a, id), func(e agent.Event) bool {
			raw, _ := e.Data.(json.RawMessage)
			return e.Type == agent.TypeError && strings.Contains(string(raw), "wrote its thinking without the tag that opens it")
		})
	}
	id, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what is 2 + 2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, answer := thinkingAndAnswer(t, events); !strings.HasSuffix(answer, "Nothing to run: 2 + 2 = 4.") || !told(id) {
		t.Fatalf("first answer %q, told %v", answer, told(id))
	}
	if _, err := os.Stat(filepath.Join(ws, "considered")); err == nil {
		t.Fatal("the considered command ran")
	}
	id, events, err = ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what is 2 + 3"})
	if err != nil {
		t.Fatal(err)
	}
	if thinking, answer := thinkingAndAnswer(t, events); thinking != "Okay, 2 + 3 is simple.\n" || answer != "5." || told(id) {
		t.Fatalf("second: thinking %q, answer %q, told again %v", thinking, answer, told(id))
	}
	// The next run of Shrimp (a command-line chat is a process of its
	// own) knows it from the first answer on.
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	a = openApp(t, data, srv.URL)
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what is 3 + 3"})
	if err != nil {
		t.Fatal(err)
	}
	if thinking, answer := thinkingAndAnswer(t, events); thinking != "Okay, 3 + 3 then.\n" || answer != "6." {
		t.Fatalf("in the next process: thinking %q, answer %q", thinking, answer)
	}
	// Once Ollama reads the model's thinking itself (its template
	// fixed), that is forgotten, for the next process too.
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "what is 3 + 4"})
	if err != nil {
		t.Fatal(err)
	}
	if thinking, answer := thinkingAndAnswer(t, events); thinking != "Seven, plainly." || answer != "7." {
		t.Fatalf("thinking of Ollama's own: thinking %q, answer %q", thinking, answer)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	a = openApp(t, data, srv.URL)
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "say something"})
	if err != nil {
		t.Fatal(err)
	}
	if thinking, answer := thinkingAndAnswer(t, events); thinking != "" || answer != "Plain answer." {
		t.Fatalf("after it was forgotten: thinking %q, answer %q", thinking, answer)
	}
}

// thinkingAndAnswer is a run's thinking, as streamed, and its answer;
// a call made fails the test (none was meant).
func thinkingAndAnswer(t *testing.T, events []agent.Event) (thinking, answer string) {
	t.Helper()
	for _, e := range events {
		switch d := e.Data.(type) {
		case agent.Delta:
			if e.Type == agent.TypeThinking {
				thinking += d.Text
			}
		case agent.Response:
			answer = d.Text
		case agent.ToolCall:
			t.Fatalf("a call from the thinking ran: %+v", d)
		}
	}
	return thinking, answer
}

// TestCallsInTheirFamilysText: a model whose calls Ollama leaves in the
// text (no parser for it as installed) in its family's own form, not
// JSON, has them run: the file is written, the next request shows the
// model its call as a call, and the window never shows the call's text.
func TestCallsInTheirFamilysText(t *testing.T) {
	for _, tt := range []struct{ family, reply string }{
		{"gemma4", "<|channel>thought\nWrite it.<channel|><|tool_call>call:fs.write{content:<|\"|>- buy milk\n<|\"|>,path:<|\"|>notes.md<|\"|>}<tool_call|>"},
		{"functiongemma", "<start_function_call>call:fs.write{content:<escape>- buy milk\n<escape>,path:<escape>notes.md<escape>}<end_function_call>"},
		{"lfm2", "<|tool_call_start|>[fs.write(content=\"- buy milk\\n\", path=\"notes.md\")]<|tool_call_end|>"},
		{"olmo3", "<function_calls>fs.write(content=\"- buy milk\\n\", path=\"notes.md\")</function_calls>"},
		{"minimax-m2", "<minimax:tool_call>\n<invoke name=\"fs.write\">\n<parameter name=\"content\">- buy milk\n</parameter>\n<parameter name=\"path\">notes.md</parameter>\n</invoke>\n</minimax:tool_call>"},
		{"cohere", "<|START_THINKING|>Write it.<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"fs.write\", \"parameters\": {\"content\": \"- buy milk\\n\", \"path\": \"notes.md\"}}]<|END_ACTION|>"},
		{"seed-oss", "<seed:tool_call>\n<function=fs.write>\n<parameter=content>- buy milk\n</parameter>\n<parameter=path>notes.md</parameter>\n</function>\n</seed:tool_call>"},
		// Ollama's harmony renderer gives gpt-oss fs.write as fs_write.
		{"gpt-oss", "<|channel|>analysis<|message|>Write it.<|end|><|start|>assistant<|channel|>commentary to=functions.fs_write <|constrain|>json<|message|>{\"content\":\"- buy milk\\n\",\"path\":\"notes.md\"}<|call|>"},
	} {
		t.Run(tt.family, func(t *testing.T) {
			ws := t.TempDir()
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text(tt.reply), ollamatest.Text("Written.")}})
			a := openApp(t, t.TempDir(), srv.URL)
			_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "note that I need milk"})
			if err != nil {
				t.Fatal(err)
			}
			if r := toolResults(events); len(r) != 1 || r[0].Name != "fs.write" || r[0].Error != "" {
				t.Fatalf("results %+v", r)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "- buy milk\n" {
				t.Fatalf("notes.md: %q %v", b, err)
			}
			for _, e := range events {
				if d, ok := e.Data.(agent.Delta); ok && e.Type != agent.TypeThinking && strings.Contains(d.Text, "notes.md") {
					t.Errorf("the call's text was shown as the answer: %q", d.Text)
				}
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Chat.Messages
			var called bool
			for _, m := range last {
				for _, c := range m.ToolCalls {
					called = called || c.Function.Name == "fs.write"
				}
			}
			if !called {
				t.Errorf("the next request does not show the model its call: %+v", last)
			}
		})
	}
}

// TestRawTextValuesKeepTheirText: the forms that write every value as raw
// text (Qwen3-Coder's, Seed-OSS's, MiniMax's invoke XML, GLM's) have a
// file's content written as it was written, though it reads as JSON, and
// a number the schema asks for made one (vllm-mlx #63 and mlx-lm #912 met
// the values these forms carry).
func TestRawTextValuesKeepTheirText(t *testing.T) {
	const content = "[1, 2, 3]"
	for _, tt := range []struct{ family, reply string }{
		{"qwen3-coder", "<tool_call>\n<function=fs.write>\n<parameter=path>\nlist.json\n</parameter>\n<parameter=content>\n" + content + "\n</parameter>\n</function>\n</tool_call>"},
		{"seed-oss", "<seed:tool_call>\n<function=fs.write>\n<parameter=path>list.json</parameter>\n<parameter=content>" + content + "</parameter>\n</function>\n</seed:tool_call>"},
		{"minimax-m2", "<minimax:tool_call>\n<invoke name=\"fs.write\">\n<parameter name=\"path\">list.json</parameter>\n<parameter name=\"content\">" + content + "</parameter>\n</invoke>\n</minimax:tool_call>"},
		{"glm-4.5", "<tool_call>fs.write\n<arg_key>path</arg_key>\n<arg_value>list.json</arg_value>\n<arg_key>content</arg_key>\n<arg_value>" + content + "</arg_value>\n</tool_call>"},
	} {
		t.Run(tt.family, func(t *testing.T) {
			ws := t.TempDir()
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text(tt.reply), ollamatest.Text("Written.")}})
			a := openApp(t, t.TempDir(), srv.URL)
			_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "write the list"})
			if err != nil {
				t.Fatal(err)
			}
			if r := toolResults(events); len(r) != 1 || r[0].Error != "" {
				t.Fatalf("results %+v", r)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "list.json")); err != nil || string(b) != content {
				t.Fatalf("list.json: %q %v", b, err)
			}
		})
	}
	// A number the schema asks for, written as raw text.
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("<tool_call>\n<function=fs.read>\n<parameter=path>\na.txt\n</parameter>\n<parameter=limit>\n2\n</parameter>\n</function>\n</tool_call>"),
		ollamatest.Text("Read."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "read two lines"})
	if err != nil {
		t.Fatal(err)
	}
	if r := toolResults(events); len(r) != 1 || r[0].Error != "" || !strings.Contains(r[0].Output, "two") || strings.Contains(r[0].Output, "three") {
		t.Fatalf("results %+v", r)
	}
}

// TestJSONContentIsWritten: a model that gives a JSON file's content as
// the JSON itself, not as a string, gets the file written.
func TestJSONContentIsWritten(t *testing.T) {
	ws := t.TempDir()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "package.json", "content": map[string]any{"name": "demo", "private": true}}}),
		ollamatest.Text("Written."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeAll, Text: "make a package.json"})
	if err != nil {
		t.Fatal(err)
	}
	if r := toolResults(events); len(r) != 1 || r[0].Error != "" {
		t.Fatalf("results %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(ws, "package.json"))
	if err != nil || string(b) != "{\n  \"name\": \"demo\",\n  \"private\": true\n}\n" {
		t.Fatalf("package.json: %q %v", b, err)
	}
}
