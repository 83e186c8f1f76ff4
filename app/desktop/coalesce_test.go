package desktop

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestCoalesce: a session opens with each run of streamed pieces as one
// event of their text, spanning their seqs; everything else as stored.
func TestCoalesce(t *testing.T) {
	var evs []agent.Event
	add := func(typ agent.Type, data any) {
		raw, _ := json.Marshal(data)
		evs = append(evs, agent.Event{Session: "s", Seq: int64(len(evs) + 1), Type: typ, Time: time.Unix(int64(len(evs)), 0), Data: json.RawMessage(raw)})
	}
	add(agent.TypeRunStarted, agent.RunStarted{Text: "go"})
	add(agent.TypeThinking, agent.Delta{Text: "let me "})
	add(agent.TypeThinking, agent.Delta{Text: "see"})
	for _, w := range []string{"I will ", "list ", "files."} {
		add(agent.TypeToken, agent.Delta{Text: w})
	}
	add(agent.TypeToolCall, agent.ToolCall{ID: "1", Name: "fs.list"})
	add(agent.TypeToken, agent.Delta{Text: "Done."})
	add(agent.TypeRunEnded, agent.RunEnded{Status: "responded"})
	got := coalesce(evs)
	var b strings.Builder
	for _, e := range got {
		fmt.Fprintf(&b, "%d-%d %s %s\n", e.FirstSeq, e.Seq, e.Type, e.Data)
	}
	want := `0-1 agent:run-started {"model":"","text":"go"}
2-3 agent:thinking {"text":"let me see"}
4-6 agent:token {"text":"I will list files."}
0-7 agent:tool-call ` + string(evs[6].Data.(json.RawMessage)) + `
8-8 agent:token {"text":"Done."}
0-9 agent:run-ended ` + string(evs[8].Data.(json.RawMessage)) + `
`
	if b.String() != want {
		t.Fatalf("got\n%swant\n%s", b.String(), want)
	}
	if !got[2].Time.Equal(evs[5].Time) {
		t.Errorf("a run of pieces carries the time of its last: %v", got[2].Time)
	}
	// A gap in the seqs (events the store lacks) starts a new run.
	gap := []agent.Event{evs[3], evs[5]}
	if n := len(coalesce(gap)); n != 2 {
		t.Errorf("pieces across a gap were joined: %d events", n)
	}
}
