package agent_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestPromises: replies that say what the model will do next, as small
// models end their turn, and replies that answer (testdata/replies.jsonl).
func TestPromises(t *testing.T) {
	f, err := os.Open("testdata/replies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c struct {
			Reply   string `json:"reply"`
			Promise bool   `json:"promise"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		if got := agent.Promises(c.Reply); got != c.Promise {
			t.Errorf("%q: promise %v, want %v", c.Reply, got, c.Promise)
		}
	}
	if n < 20 {
		t.Fatalf("%d replies read", n)
	}
}

// TestPromiseListsAreClean: the openers are lower case and given once,
// and each closing goes on from an opener (else it could never apply).
func TestPromiseListsAreClean(t *testing.T) {
	openers, closings := agent.PromiseLists()
	var all []string
	for lang, os := range openers {
		for _, o := range os {
			if o != strings.ToLower(o) || strings.TrimSpace(o) != o || o == "" {
				t.Errorf("%s opener %q: not lower case and trimmed", lang, o)
			}
			all = append(all, o)
		}
	}
	slices.Sort(all)
	if d := slices.Compact(slices.Clone(all)); len(d) != len(all) {
		t.Errorf("an opener is given twice: %q", all)
	}
	for _, c := range closings {
		if !slices.ContainsFunc(all, func(o string) bool { return strings.HasPrefix(c, o+" ") }) {
			t.Errorf("closing %q goes on from no opener", c)
		}
	}
}

// TestPromisedReply: a reply that says what the model will do and calls
// no tool is sent back once a run, with a warning; a second is the
// answer, and without tools to call none is asked for.
func TestPromisedReply(t *testing.T) {
	for _, tc := range []struct {
		name   string
		turns  [][]api.ChatResponse
		tools  agent.Tools
		calls  int
		answer string
		nudged bool
	}{
		{"goes on when asked", [][]api.ChatResponse{text("Let me check the files."), call("echo", `{"text":"x"}`), text("There is one file.")}, tools{}, 3, "There is one file.", true},
		{"once a run", [][]api.ChatResponse{text("Let me check the files."), text("I'll look now.")}, tools{}, 2, "I'll look now.", true},
		{"an answer is an answer", [][]api.ChatResponse{text("There is one file. Let me know if you need more.")}, tools{}, 1, "There is one file. Let me know if you need more.", false},
		{"no tools offered", [][]api.ChatResponse{text("Let me check the files.")}, noTools{}, 1, "Let me check the files.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sentBack(t, tc.turns, tc.tools, tc.calls, tc.answer, tc.nudged,
				"said what it would do next but called no tool", "your reply called no tool, so nothing was done")
		})
	}
}

// sentBack runs turns and checks the run made calls model calls and
// answered answer, and that the model was sent back after its first reply
// (a warning holding warning, a message to it holding told) when nudged,
// else not.
func sentBack(t *testing.T, turns [][]api.ChatResponse, tl agent.Tools, calls int, answer string, nudged bool, warning, told string) {
	t.Helper()
	m := &scripted{turns: turns}
	evs, err := collect(t, &agent.Agent{Model: m, Tools: tl})
	if err != nil {
		t.Fatal(err)
	}
	r := find[agent.Response](evs)
	if len(m.reqs) != calls || len(r) != 1 || r[0].Text != answer {
		t.Fatalf("%d model calls, responses %+v", len(m.reqs), r)
	}
	warned := slices.ContainsFunc(find[agent.Error](evs), func(e agent.Error) bool {
		return e.Kind == agent.KindWarning && strings.Contains(e.Message, warning)
	})
	said := len(m.reqs) > 1 && slices.ContainsFunc(m.reqs[1].Messages, func(msg api.Message) bool {
		return msg.Role == "user" && strings.Contains(msg.Content, told)
	})
	if warned != nudged || said != nudged {
		t.Fatalf("warned %v, told the model %v; want %v", warned, said, nudged)
	}
}

// noTools offers the model no tool.
type noTools struct{ tools }

func (noTools) Specs() api.Tools { return nil }
